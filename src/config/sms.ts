import { z } from 'zod';
import { AccountCarriersConfigSchema, buildSmsCarriersConfig, CarriersConfigSchema, jsonEnv } from './sms-carriers';

const PricesSchema = z.record(z.string(), z.string().regex(/^\d+(\.\d{1,6})?$/));

/** SMS: prices, keyword help text, receipt waits, and the carriers (sms-carriers.ts). */
export const smsConfig = z
  .object({
    /** SMS price per segment by destination country (ISO 3166 alpha-2, plus `default`), decimal strings. */
    SMS_PRICES: z
      .string()
      .default('{"default":"0.0079","US":"0.0079","CA":"0.0079","GB":"0.0400","FR":"0.0800","DE":"0.0900","IN":"0.0030"}')
      .transform((s, ctx) => {
        const parsed = PricesSchema.safeParse((() => { try { return JSON.parse(s); } catch { return null; } })());
        if (!parsed.success || !parsed.data.default) {
          ctx.addIssue({ code: 'custom', message: 'a JSON object of country code to decimal price string, with a "default"' });
          return z.NEVER;
        }
        return parsed.data;
      }),
    SMS_PRICE_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('USD'),
    /** Answer to an inbound HELP when the phone number has no help text of its own. */
    SMS_HELP_TEXT: z.string().min(1).default('Reply STOP to unsubscribe, START to resubscribe. Msg&data rates may apply.'),
    /** How long a sent message waits for its handset receipt before it stays `sent`. */
    SMS_RECEIPT_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(48 * 3600),
    /** A submit that went out unanswered waits this long for its receipt before the message is submitted again. */
    SMS_UNCERTAIN_SUBMIT_WAIT_SECONDS: z.coerce.number().int().positive().default(600),
    /** SMS carriers as a JSON array (see docs/sms-error-codes.md and sms-carriers.ts); default: the sandbox alone. */
    SMS_CARRIERS: jsonEnv(CarriersConfigSchema).optional(),
    /** JSON object: account id → names of the carriers it may use. */
    SMS_ACCOUNT_CARRIERS: jsonEnv(AccountCarriersConfigSchema).optional(),
    /**
     * JSON object: account id → messages per second its SMS may leave at (per worker process, both modes
     * apart); accounts not listed are paced by the carriers' own max_mps only.
     */
    SMS_ACCOUNT_THROUGHPUT: jsonEnv(z.record(z.string().min(1), z.number().positive().max(100_000))).optional(),
  })
  .transform((e) => ({
    messaging: {
      prices: e.SMS_PRICES,
      priceCurrency: e.SMS_PRICE_CURRENCY,
      helpText: e.SMS_HELP_TEXT,
      receiptTimeoutSeconds: e.SMS_RECEIPT_TIMEOUT_SECONDS,
      uncertainSubmitWaitSeconds: e.SMS_UNCERTAIN_SUBMIT_WAIT_SECONDS,
      accountThroughput: (e.SMS_ACCOUNT_THROUGHPUT ?? {}) as Record<string, number>,
    },
    sms: buildSmsCarriersConfig(e.SMS_CARRIERS, e.SMS_ACCOUNT_CARRIERS),
  }));
