import { z } from '../domain/api-schema';
import { AccountSchema, toAccountObject, UpdateAccountBodySchema } from './account.schemas';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import type { AccountsService } from './accounts.service';
import { RotateSecretBodySchema } from '../http/schemas';
import { scopeOf } from '../domain/principal';

export function registerAccountRoutes({ router, registry, services }: RouteDeps<{ accounts: AccountsService }>) {
  defineRoute(router, registry, { method: 'get', path: '/v1/account', summary: 'The account of the API key', tag: 'Account', response: AccountSchema },
    async ({ principal }) => toAccountObject(await services.accounts.getAccount({ accountId: principal.accountId }), principal.mode));

  defineRoute(router, registry, { method: 'post', path: '/v1/account', summary: 'Update the account (the fields given)', tag: 'Account', body: UpdateAccountBodySchema, response: AccountSchema },
    async ({ principal, body }) => toAccountObject(await services.accounts.updateAccount({ accountId: principal.accountId, signSmsReplies: body.sign_sms_replies }), principal.mode));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/account/rotate_signing_secret', tag: 'Account', body: RotateSecretBodySchema, response: AccountSchema,
    summary: "Replace the signing secret of the key's mode; the old one keeps signing beside it for the grace period",
  }, async ({ principal, body }) =>
    toAccountObject(
      await services.accounts.rotateSigningSecret({ ...scopeOf(principal), gracePeriodSeconds: body.grace_period_seconds }),
      principal.mode,
    ));
}
