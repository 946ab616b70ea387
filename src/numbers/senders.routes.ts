import { z } from 'zod';
import { defineRoute } from '../http/route';
import { IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import type { SendersService } from './senders.service';
import { scopeOf } from '../domain/principal';

const SenderSchema = z
  .object({
    id: z.string().describe('snd_ prefix'),
    object: z.literal('sender'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    sender: z.string().describe('alphanumeric sender ID or short code, usable as `from`'),
    kind: z.enum(['alphanumeric', 'short_code']),
    created_at: z.string(),
  })
  .openapi('Sender');

/** Read-only: senders are registered by operators (`npm run cli -- senders add`) or in the console. */
export function registerSenderRoutes({ router, registry, services }: RouteDeps<{ senders: SendersService }>) {
  const tag = 'SMS';
  const svc = services.senders;

  defineRoute(router, registry, { method: 'get', path: '/v1/senders', summary: "List the account's sender IDs and short codes", tag, query: PageQuerySchema, response: listOf(SenderSchema, 'SenderList') },
    ({ query, principal }) => svc.listSenders({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/senders/{id}', summary: 'Retrieve a sender', tag, params: IdParamsSchema, response: SenderSchema },
    ({ params, principal }) => svc.getSender({ ...scopeOf(principal), senderId: params.id }));
}
