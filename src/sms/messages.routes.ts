import { z } from 'zod';
import { MAX_BODY_CHARS, type MessagesService } from './messages.service';
import { defineRoute } from '../http/route';
import { responseStoreOf } from '../http/middleware/idempotency';
import { E164Schema } from '../domain/api-schema';
import { HttpUrlSchema, IdParamsSchema, listOf, PageQuerySchema, SenderSchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import { MessageSchema, MessageStatusSchema } from './message.schemas';
import { scopeOf } from '../domain/principal';

const timestamp = z.iso.datetime({ offset: true });

const CreateBodySchema = z.strictObject({
  to: E164Schema.describe('E.164 recipient (a number outside its numbering plan: 422)'),
  from: SenderSchema,
  body: z.string().min(1).max(MAX_BODY_CHARS).describe(`at most ${MAX_BODY_CHARS} characters and 10 segments (more segments: 422)`),
  channel: z.literal('sms').optional(),
  type: z.enum(['transactional', 'promotional']).optional(),
  status_callback: HttpUrlSchema.optional(),
  reference: z.string().max(255).optional(),
  send_at: timestamp.optional().describe('RFC 3339, not in the past, at most 35 days ahead (else 422)'),
});

const ListQuerySchema = PageQuerySchema.extend({
  to: z.string().max(32).optional(),
  from: z.string().max(32).optional(),
  status: MessageStatusSchema.optional(),
  direction: z.enum(['inbound', 'outbound']).optional(),
});

export function registerMessageRoutes({ router, registry, services }: RouteDeps<{ messages: MessagesService }>) {
  const tag = 'SMS';
  const svc = services.messages;

  defineRoute(router, registry, { method: 'post', path: '/v1/messages', summary: 'Send an SMS', tag, body: CreateBodySchema, response: MessageSchema, status: 201 },
    ({ body, principal, res }) => {
      const store = responseStoreOf(res);
      return svc.createMessage({ principal, ...body, recordResponse: store && ((tx, message) => store(tx, 201, message)) });
    });

  defineRoute(router, registry, { method: 'get', path: '/v1/messages', summary: 'List messages, newest first', tag, query: ListQuerySchema, response: listOf(MessageSchema, 'MessageList') },
    ({ query, principal }) => {
      const { to, from, status, direction, ...page } = query;
      return svc.listMessages({ ...scopeOf(principal), page, to, from, status, direction });
    });

  defineRoute(router, registry, { method: 'get', path: '/v1/messages/{id}', summary: 'Retrieve a message', tag, params: IdParamsSchema, response: MessageSchema },
    ({ params, principal }) => svc.getMessage({ ...scopeOf(principal), messageId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/messages/{id}/cancel', summary: 'Cancel a message still queued (waiting for send_at or quiet hours)', tag, params: IdParamsSchema, response: MessageSchema },
    ({ params, principal }) => svc.cancelMessage({ ...scopeOf(principal), messageId: params.id }));
}
