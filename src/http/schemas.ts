import { z } from 'zod';
import { MAX_SIGNING_SECRET_GRACE_SECONDS } from '../domain/signature';
import { E164Schema } from '../domain/api-schema';

/** Schemas shared by every resource: the error object, list envelopes and pagination parameters. */
export const ErrorResponseSchema = z
  .object({
    error: z.object({
      type: z.string(),
      code: z.string(),
      message: z.string(),
      param: z.string().optional(),
      request_id: z.string(),
    }),
  })
  .openapi('Error');

export const IdParamsSchema = z.strictObject({ id: z.string().min(1).max(255) });

const timestamp = z.iso.datetime({ offset: true });

export const PageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  starting_after: z.string().min(1).max(255).optional().describe('id of an object of this list: the page after it. Not with ending_before (422)'),
  ending_before: z.string().min(1).max(255).optional().describe('id of an object of this list: the page before it. Not with starting_after (422)'),
  created_after: timestamp.optional(),
  created_before: timestamp.optional(),
});
export type PageQuery = z.infer<typeof PageQuerySchema>;

export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() })
    .openapi(name);
}

export const DeletedSchema = z.object({ id: z.string(), object: z.string(), deleted: z.literal(true) });

/** Free key-value tags (Stripe-style metadata): string values, bounded. */
export const MetadataSchema = z
  .record(z.string().max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .openapi({ maxProperties: 50, propertyNames: { maxLength: 40 } } as Record<string, unknown>);

/** Alphanumeric sender ID: 1–11 letters, digits and inner spaces, at least one letter. */
export const SenderIdSchema = z.string().max(11).regex(/^(?:[0-9]+ +)*[0-9]*[A-Za-z](?:[A-Za-z0-9 ]*[A-Za-z0-9])?$/);

/** Any sender: one of the account's phone numbers, short codes (3–8 digits) or sender IDs. */
export const SenderSchema = z
  .union([E164Schema, z.string().regex(/^\d{3,8}$/), SenderIdSchema])
  .describe("one of the account's phone numbers (E.164), short codes (3–8 digits) or alphanumeric sender IDs (≤ 11)");

/** An absolute http(s) URL, no credentials (live mode further requires https and a public address: 422). */
export const HttpUrlSchema = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^\s/?#@\u0000]+(?:[/?#][^\s\u0000]*)?$/)
  .describe('absolute http(s) URL without credentials; https and a public address for live-mode objects (else 422)');

/** Body of a signing secret rotation (account signing secret, webhook endpoint secret). */
export const RotateSecretBodySchema = z.strictObject({
  grace_period_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_SIGNING_SECRET_GRACE_SECONDS)
    .optional()
    .describe(`How long the replaced secret keeps signing beside the new one; default and at most ${MAX_SIGNING_SECRET_GRACE_SECONDS} (24 h), 0 ends it at once`),
});
