import { z } from '../../domain/api-schema';
import type { RouteDeps } from '../../http/route-deps';
import { defineRoute } from '../../http/route';
import { DeletedSchema, IdParamsSchema, listOf, PageQuerySchema } from '../../http/schemas';
import { scopeOf } from '../../domain/principal';
import { EmailAddressSchema } from './email.schemas';
import { MAILBOX_PATTERN, type EmailAddressesService } from './email-addresses.service';

const AgentIdSchema = z.string().regex(/^agt_[0-9A-Za-z]+$/);
const DisplayNameSchema = z.string().max(120);

const CreateEmailAddressBodySchema = z.strictObject({
  address: z.string().max(254).regex(MAILBOX_PATTERN).describe('a plain mailbox (local@domain) routed to this service by your mail relay; in live mode on one of your verified domains (422 domain_not_verified)'),
  display_name: DisplayNameSchema.optional().describe('shown as the sender name of replies'),
  agent_id: AgentIdSchema.optional().describe('a live agent configured for email, answering what arrives (422 agent_not_live / channel_not_supported)'),
});

const UpdateEmailAddressBodySchema = z.strictObject({
  agent_id: AgentIdSchema.nullable().optional().describe('attach a live email agent; null detaches (what arrives then reaches the inbox as the team\'s conversation)'),
  display_name: DisplayNameSchema.nullable().optional(),
});

/** The account's inbound email addresses and the agent answering each. */
export function registerEmailAddressRoutes({ router, registry, services }: RouteDeps<{ emailAddresses: EmailAddressesService }>) {
  const tag = 'Email';
  const svc = services.emailAddresses;

  defineRoute(router, registry, { method: 'post', path: '/v1/email_addresses', summary: 'Register an inbound email address', tag, body: CreateEmailAddressBodySchema, response: EmailAddressSchema, status: 201 },
    ({ body, principal }) => svc.addAddress({ ...scopeOf(principal), address: body.address, displayName: body.display_name, agentId: body.agent_id }));

  defineRoute(router, registry, { method: 'get', path: '/v1/email_addresses', summary: "List the account's email addresses", tag, query: PageQuerySchema, response: listOf(EmailAddressSchema, 'EmailAddressList') },
    ({ query, principal }) => svc.listAddressPage({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/email_addresses/{id}', summary: 'Retrieve an email address', tag, params: IdParamsSchema, response: EmailAddressSchema },
    ({ params, principal }) => svc.getAddress({ ...scopeOf(principal), emailAddressId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/email_addresses/{id}', summary: "Update an email address (its agent, its display name)", tag, params: IdParamsSchema, body: UpdateEmailAddressBodySchema, response: EmailAddressSchema },
    ({ params, body, principal }) => svc.updateAddress({ ...scopeOf(principal), emailAddressId: params.id, agentId: body.agent_id, displayName: body.display_name }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/email_addresses/{id}', summary: 'Delete an email address (what arrives there afterwards is ignored)', tag, params: IdParamsSchema, response: DeletedSchema },
    ({ params, principal }) => svc.deleteAddress({ ...scopeOf(principal), emailAddressId: params.id }));
}
