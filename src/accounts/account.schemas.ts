import type { Selectable } from 'kysely';
import type { AccountTable } from '../db/tables/accounts';
import { z } from '../domain/api-schema';

/** The account of an API key: the API's response schema, the presenter's type and the OpenAPI entry. */
export const AccountSchema = z
  .object({
    id: z.string(),
    object: z.literal('account'),
    name: z.string(),
    signing_secret: z
      .string()
      .describe("The secret of the key's mode (test and live have one each): signs that mode's status callbacks, tool calls and api-source queries (same scheme as webhooks)"),
    previous_signing_secret_expires_at: z
      .string()
      .nullable()
      .describe('After a rotation, until when the replaced secret still signs beside the new one (a second v1 in Service-Signature)'),
    sign_sms_replies: z.boolean().describe('a teammate\'s SMS reply ends with "— <their display name>" (default false); email replies always carry the name in From ("Dana at Shop")'),
    created_at: z.string(),
  })
  .openapi('Account');

export const UpdateAccountBodySchema = z.strictObject({
  sign_sms_replies: z.boolean().optional().describe('true: a teammate\'s SMS reply ends with "— <their display name>"'),
});

export type AccountObject = z.infer<typeof AccountSchema>;

/** The account as a key of one mode sees it: that mode's signing secret only. */
export const toAccountObject = (a: Selectable<AccountTable>, mode: 'test' | 'live'): AccountObject => {
  const expiresAt = mode === 'live' ? a.previous_signing_secret_expires_at : a.test_previous_signing_secret_expires_at;
  return {
    id: a.id,
    object: 'account',
    name: a.name,
    signing_secret: mode === 'live' ? a.signing_secret : a.test_signing_secret,
    previous_signing_secret_expires_at: expiresAt && expiresAt > new Date() ? expiresAt.toISOString() : null,
    sign_sms_replies: a.sign_sms_replies,
    created_at: a.created_at.toISOString(),
  };
};
