import { z } from '../domain/api-schema';
import { defineRoute } from '../http/route';
import { IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import type { PhoneNumbersService } from './phone-numbers.service';
import { PhoneNumberSchema } from './phone-number.schemas';
import { scopeOf } from '../domain/principal';
import { VoiceCallFlowSchema } from './call-flow.schemas';

const UpdatePhoneNumberBodySchema = z.strictObject({
  agent_id: z.string().regex(/^agt_[0-9A-Za-z]+$/).nullable().optional()
    .describe('a live agent configured for sms, answering inbound messages (422 agent_not_live / channel_not_supported); null detaches'),
  voice_call_flow: VoiceCallFlowSchema.nullable().optional()
    .describe("what an inbound call hears and who answers it; a connect_agent action's agent must be live and configured for voice; null: the number takes no calls"),
});

/** Numbers are provisioned by operators (`npm run cli -- numbers add`) or in the console; their agent and call flow are set here too. */
export function registerPhoneNumberRoutes({ router, registry, services }: RouteDeps<{ phoneNumbers: PhoneNumbersService }>) {
  const tag = 'SMS';
  const svc = services.phoneNumbers;

  defineRoute(router, registry, { method: 'get', path: '/v1/phone_numbers', summary: "List the account's phone numbers", tag, query: PageQuerySchema, response: listOf(PhoneNumberSchema, 'PhoneNumberList') },
    ({ query, principal }) => svc.listPhoneNumbers({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/phone_numbers/{id}', summary: 'Retrieve a phone number', tag, params: IdParamsSchema, response: PhoneNumberSchema },
    ({ params, principal }) => svc.getPhoneNumber({ ...scopeOf(principal), phoneNumberId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/phone_numbers/{id}', summary: "Update a phone number (its SMS agent, its voice call flow)", tag, params: IdParamsSchema, body: UpdatePhoneNumberBodySchema, response: PhoneNumberSchema },
    ({ params, body, principal }) => svc.updatePhoneNumber({ ...scopeOf(principal), phoneNumberId: params.id, agentId: body.agent_id, flow: body.voice_call_flow }));
}
