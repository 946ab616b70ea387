import { z } from '../../domain/api-schema';
import type { RouteDeps } from '../../http/route-deps';
import type { EmailsService } from './emails.service';
import { defineRoute } from '../../http/route';
import { IdParamsSchema, listOf, PageQuerySchema } from '../../http/schemas';
import { scopeOf } from '../../domain/principal';
import { EmailSchema, EmailWithContentSchema } from './email.schemas';

const ListEmailsQuerySchema = PageQuerySchema.extend({
  conversation_id: z.string().regex(/^cnv_[0-9A-Za-z]+$/).optional().describe('only the emails of this conversation'),
  direction: z.enum(['inbound', 'outbound']).optional(),
});

/** The account's emails, read-only: in test mode, the sandbox's outbox (nothing reaches a relay). */
export function registerEmailObjectRoutes({ router, registry, services }: RouteDeps<{ emails: EmailsService }>) {
  const tag = 'Email';
  const svc = services.emails;

  defineRoute(router, registry, { method: 'get', path: '/v1/emails', summary: 'List emails, newest first (test mode: the sandbox)', tag, query: ListEmailsQuerySchema, response: listOf(EmailSchema, 'EmailList') },
    ({ query, principal }) => svc.listEmailPage({ ...scopeOf(principal), page: query, conversationId: query.conversation_id, direction: query.direction }));

  defineRoute(router, registry, { method: 'get', path: '/v1/emails/{id}', summary: 'Retrieve an email with its content', tag, params: IdParamsSchema, response: EmailWithContentSchema },
    ({ params, principal }) => svc.getEmail({ ...scopeOf(principal), emailId: params.id }));
}
