import { AccountSchema, toAccountObject } from './account.schemas';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';

export function registerAccountRoutes({ router, registry, services }: RouteDeps) {
  defineRoute(router, registry, { method: 'get', path: '/v1/account', summary: 'The account of the API key', tag: 'Account', response: AccountSchema },
    async ({ principal }) => toAccountObject(await services.accounts.getAccount({ accountId: principal.accountId })));
}
