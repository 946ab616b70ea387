import { z } from '../../domain/api-schema';
import type { RouteDeps } from '../../http/route-deps';
import type { CallsService } from './calls.service';
import { defineRoute } from '../../http/route';
import { IdParamsSchema, listOf, PageQuerySchema } from '../../http/schemas';
import { scopeOf } from '../../domain/principal';
import { CallSchema, CallStatusSchema } from './call.schemas';

const ListCallsQuerySchema = PageQuerySchema.extend({
  phone_number_id: z.string().regex(/^pn_[0-9A-Za-z]+$/).optional().describe('only calls to this number'),
  conversation_id: z.string().regex(/^cnv_[0-9A-Za-z]+$/).optional().describe('only calls whose transcript is this conversation'),
  status: CallStatusSchema.optional(),
});

/** The account's voice calls, read-only (the provider's webhooks move them; test helpers place test ones). */
export function registerCallRoutes({ router, registry, services }: RouteDeps<{ calls: CallsService }>) {
  const tag = 'Voice';
  const svc = services.calls;

  defineRoute(router, registry, { method: 'get', path: '/v1/calls', summary: 'List calls, newest first', tag, query: ListCallsQuerySchema, response: listOf(CallSchema, 'CallList') },
    ({ query, principal }) => svc.listCalls({ ...scopeOf(principal), page: query, phoneNumberId: query.phone_number_id, conversationId: query.conversation_id, status: query.status }));

  defineRoute(router, registry, { method: 'get', path: '/v1/calls/{id}', summary: 'Retrieve a call', tag, params: IdParamsSchema, response: CallSchema },
    ({ params, principal }) => svc.getCall({ ...scopeOf(principal), callId: params.id }));
}
