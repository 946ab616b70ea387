import type { Selectable } from 'kysely';
import type { AccountTable } from '../db/tables/accounts';
import { z } from '../domain/api-schema';

/** The account of an API key: the API's response schema, the presenter's type and the OpenAPI entry. */
export const AccountSchema = z
  .object({
    id: z.string(),
    object: z.literal('account'),
    name: z.string(),
    signing_secret: z.string().describe('Signs status callbacks and tool calls (same scheme as webhooks)'),
    previous_signing_secret_expires_at: z
      .string()
      .nullable()
      .describe('After a rotation, until when the replaced secret still signs beside the new one (a second v1 in Service-Signature)'),
    created_at: z.string(),
  })
  .openapi('Account');

export type AccountObject = z.infer<typeof AccountSchema>;

export const toAccountObject = (a: Selectable<AccountTable>): AccountObject => ({
  id: a.id,
  object: 'account',
  name: a.name,
  signing_secret: a.signing_secret,
  previous_signing_secret_expires_at:
    a.previous_signing_secret_expires_at && a.previous_signing_secret_expires_at > new Date() ? a.previous_signing_secret_expires_at.toISOString() : null,
  created_at: a.created_at.toISOString(),
});
