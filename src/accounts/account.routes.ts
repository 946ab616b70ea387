import { z } from 'zod';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';

const AccountSchema = z
  .object({
    id: z.string(),
    object: z.literal('account'),
    name: z.string(),
    signing_secret: z.string().describe('Signs status callbacks and tool calls (same scheme as webhooks)'),
    created_at: z.string(),
  })
  .openapi('Account');

export function registerAccountRoutes({ router, registry, services }: RouteDeps) {
  defineRoute(router, registry, { method: 'get', path: '/v1/account', summary: 'The account of the API key', tag: 'Account', response: AccountSchema },
    async ({ principal }) => {
      const a = await services.accounts.getAccount({ accountId: principal.accountId });
      return { id: a.id, object: 'account', name: a.name, signing_secret: a.signing_secret, created_at: a.created_at.toISOString() };
    });
}
