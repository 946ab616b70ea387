import { z } from 'zod';

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
  starting_after: z.string().min(1).optional(),
  ending_before: z.string().min(1).optional(),
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
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');
