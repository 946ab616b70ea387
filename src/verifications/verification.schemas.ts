import type { Selectable } from 'kysely';
import type { VerificationTable } from '../db/tables/sms';
import { z } from '../domain/api-schema';

/** The verification object: the API's response schema, the presenter's type and the OpenAPI entry. */
export const VerificationSchema = z
  .object({
    id: z.string().describe('ver_ prefix'),
    object: z.literal('verification'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    to: z.string(),
    channel: z.string(),
    status: z.enum(['pending', 'approved', 'expired', 'max_attempts_reached']),
    attempts: z.number().int().describe('codes checked so far'),
    max_attempts: z.number().int(),
    message_id: z.string().nullable().describe('the SMS that carried the code'),
    expires_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Verification');

export type VerificationObject = z.infer<typeof VerificationSchema>;

/** What checking a code answers: the verification and whether this code was the right one. */
export const VerificationCheckSchema = VerificationSchema.extend({ valid: z.boolean() });

export type VerificationCheckObject = z.infer<typeof VerificationCheckSchema>;

export const toVerificationObject = (v: Selectable<VerificationTable>): VerificationObject => ({
  id: v.id,
  object: 'verification',
  livemode: v.livemode,
  to: v.to,
  channel: v.channel,
  status: v.status,
  attempts: v.attempts,
  max_attempts: v.max_attempts,
  message_id: v.message_id,
  expires_at: v.expires_at.toISOString(),
  created_at: v.created_at.toISOString(),
  updated_at: v.updated_at.toISOString(),
});
