import { z } from '../domain/api-schema';
import { AccountSchema, toAccountObject } from './account.schemas';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { MAX_SIGNING_SECRET_GRACE_SECONDS } from './accounts.service';

const RotateBodySchema = z.strictObject({
  grace_period_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_SIGNING_SECRET_GRACE_SECONDS)
    .optional()
    .describe(`How long the replaced secret keeps signing beside the new one; default and at most ${MAX_SIGNING_SECRET_GRACE_SECONDS} (24 h), 0 ends it at once`),
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
