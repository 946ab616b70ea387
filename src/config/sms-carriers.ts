import { z } from 'zod';

/**
 * Carrier configuration as it appears in the SMS_CARRIERS env var (a JSON array), parsed once by
 * the sms slice (src/config/sms.ts). Field names are snake_case like the JSON operators write.
 */

const CarrierNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lowercase letters, digits, - and _');
/** E.164 prefixes: "+" matches every destination, "+44" the UK, "+1555" a narrower range. */
const PrefixSchema = z.string().regex(/^\+\d{0,15}$/, 'a "+" followed by up to 15 digits');
/** A fixed delay in ms, or `[min, max]` for a uniformly random one. */
const DelaySchema = z.union([
  z.number().int().min(0),
  z.tuple([z.number().int().min(0), z.number().int().min(0)]).refine(([a, b]) => a <= b, 'min must not exceed max'),
]);
export type Delay = z.infer<typeof DelaySchema>;

const CarrierBaseSchema = z.object({
  name: CarrierNameSchema,
  /** Destination prefixes this carrier serves; the longest matching prefix is tried first. */
  prefixes: z.array(PrefixSchema).min(1).default(['+']),
  /** Among carriers matching a destination with the same prefix length, lower is tried first. */
  priority: z.number().int().default(100),
});

export const SandboxCarrierConfigSchema = CarrierBaseSchema.extend({
  type: z.literal('sandbox'),
  /** Time to accept a submit. */
  submit_delay_ms: DelaySchema.default([20, 80]),
  /** Time from accept to the delivery receipt. */
  receipt_delay_ms: DelaySchema.default([300, 1500]),
}).strict();
export type SandboxCarrierConfig = z.infer<typeof SandboxCarrierConfigSchema>;

export const SmppCarrierConfigSchema = CarrierBaseSchema.extend({
  type: z.literal('smpp'),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(2775),
  tls: z.boolean().default(false),
  system_id: z.string().max(15),
  password: z.string().max(8),
  system_type: z.string().max(12).default(''),
  /** Submits per second this carrier accepts from us (parts count one each). */
  max_mps: z.number().positive().default(50),
  /** Tokens the rate limiter may hold: the largest burst sent back-to-back. Default max_mps / 10, at least 1. */
  burst: z.number().int().positive().optional(),
  /** submit_sm allowed in flight (awaiting submit_sm_resp) at once. */
  window: z.number().int().positive().default(10),
  enquire_link_ms: z.number().int().positive().default(30_000),
  /** How long to wait for any response (bind, submit_sm, enquire_link) before giving up. */
  response_timeout_ms: z.number().int().positive().default(10_000),
  reconnect_min_ms: z.number().int().positive().default(500),
  reconnect_max_ms: z.number().int().positive().default(30_000),
  /** Ask the SMSC for delivery receipts (registered_delivery 1) when the caller wants them. */
  registered_delivery: z.boolean().default(true),
  /** The carrier never sends handset receipts: `sent` is terminal for its messages. */
  no_receipts: z.boolean().default(false),
}).strict();
export type SmppCarrierConfig = z.infer<typeof SmppCarrierConfigSchema>;

export const CarrierConfigSchema = z.discriminatedUnion('type', [SandboxCarrierConfigSchema, SmppCarrierConfigSchema]);
export type CarrierConfig = z.infer<typeof CarrierConfigSchema>;

export const CarriersConfigSchema = z
  .array(CarrierConfigSchema)
  .min(1)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((c, i) => {
      if (seen.has(c.name)) ctx.addIssue({ code: 'custom', message: `duplicate carrier name '${c.name}'`, path: [i, 'name'] });
      seen.add(c.name);
    });
  });

/** Account id → carrier names it may use (in any order; the router still orders by prefix and priority). */
export const AccountCarriersConfigSchema = z.record(z.string().min(1), z.array(CarrierNameSchema).min(1));

export const DEFAULT_CARRIERS: CarrierConfig[] = [SandboxCarrierConfigSchema.parse({ name: 'sandbox', type: 'sandbox' })];

/** A zod schema for an env var holding JSON, validated by `schema`. */
export function jsonEnv<T extends z.ZodType>(schema: T) {
  return z.string().transform((raw, ctx) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
      return z.NEVER;
    }
  }).pipe(schema);
}

export interface SmsCarriersConfig {
  carriers: CarrierConfig[];
  /** Accounts restricted to some carriers; accounts not listed use every carrier. */
  accountCarriers: Record<string, string[]>;
}

/** config.sms from the parsed env vars: the sandbox alone by default; account restrictions must name configured carriers. */
export function buildSmsCarriersConfig(carriers: CarrierConfig[] | undefined, accountCarriers: Record<string, string[]> | undefined): SmsCarriersConfig {
  const list = carriers ?? DEFAULT_CARRIERS;
  const names = new Set(list.map((c) => c.name));
  for (const [account, allowed] of Object.entries(accountCarriers ?? {})) {
    const unknown = allowed.filter((n) => !names.has(n));
    if (unknown.length) throw new Error(`Invalid environment: SMS_ACCOUNT_CARRIERS.${account}: unknown carrier ${unknown.join(', ')}`);
  }
  return { carriers: list, accountCarriers: accountCarriers ?? {} };
}
