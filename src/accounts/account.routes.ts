import { z } from 'zod';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { MAX_SIGNING_SECRET_GRACE_SECONDS } from './accounts.service';

const AccountSchema = z
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

const RotateBodySchema = z.strictObject({
  grace_period_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_SIGNING_SECRET_GRACE_SECONDS)
    .optional()
    .describe(`How long the replaced secret keeps signing beside the new one; default and at most ${MAX_SIGNING_SECRET_GRACE_SECONDS} (24 h), 0 ends it at once`),
});

type AccountRow = { id: string; name: string; signing_secret: string; previous_signing_secret_expires_at: Date | null; created_at: Date };

const toAccountObject = (a: AccountRow) => ({
  id: a.id,
  object: 'account' as const,
  name: a.name,
  signing_secret: a.signing_secret,
  previous_signing_secret_expires_at: a.previous_signing_secret_expires_at && a.previous_signing_secret_expires_at > new Date() ? a.previous_signing_secret_expires_at.toISOString() : null,
  created_at: a.created_at.toISOString(),
});

export function registerAccountRoutes({ router, registry, services }: RouteDeps) {
  defineRoute(router, registry, { method: 'get', path: '/v1/account', summary: 'The account of the API key', tag: 'Account', response: AccountSchema },
    async ({ principal }) => toAccountObject(await services.accounts.getAccount({ accountId: principal.accountId })));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/account/rotate_signing_secret', tag: 'Account', body: RotateBodySchema, response: AccountSchema,
    summary: 'Replace the account signing secret; the old one keeps signing beside it for the grace period',
  }, async ({ principal, body }) =>
    toAccountObject(await services.accounts.rotateSigningSecret({ accountId: principal.accountId, gracePeriodSeconds: body.grace_period_seconds })));
}
