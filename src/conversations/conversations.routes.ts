import { E164Schema, z } from '../domain/api-schema';
import { ChannelSchema } from '../agents/agent.schemas';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import type { RunsService } from '../runs/runs.service';
import { IdParamsSchema, listOf, MetadataSchema, PageQuerySchema } from '../http/schemas';
import { lastEventId, writeSse } from '../http/sse';
import { ConversationMessageSchema, ConversationSchema, ConversationStatusSchema, CustomerSchema } from './conversation.schemas';
import { scopeOf } from '../domain/principal';
import { assertCustomerPhone, type ConversationsService } from './conversations.service';

const CreateBodySchema = z.strictObject({
  agent_id: z.string().min(1).max(255),
  channel: ChannelSchema.optional().describe('default chat'),
  customer: CustomerSchema.extend({ phone: E164Schema.describe('E.164 phone number (a number outside its numbering plan: 422)').optional() }).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  metadata: MetadataSchema.optional(),
});

const ListQuerySchema = PageQuerySchema.extend({
  agent_id: z.string().max(255).optional(),
  status: ConversationStatusSchema.optional(),
  channel: ChannelSchema.optional(),
  tag: z.string().max(100).optional(),
});

const PostMessageBodySchema = z.strictObject({
  role: z.enum(['customer', 'human']).describe('customer starts a run; human injects a desk reply without one'),
  content: z.string().min(1).max(20_000),
  attachments: z.array(z.string().url().max(2048)).max(10).optional(),
  trigger_run: z.boolean().optional().describe('default true'),
});

const PostMessageQuerySchema = z.strictObject({
  wait_ms: z.coerce.number().int().min(0).max(60_000).optional().describe('how long to wait for the run to settle (default 20000; 0 answers at once)'),
  stream: z.enum(['true', 'false']).optional().describe('true: answer 200 text/event-stream with the run as server-sent events (a customer message; otherwise 201 JSON)'),
});

const ListMessagesQuerySchema = PageQuerySchema.extend({ order: z.enum(['asc', 'desc']).optional().describe('asc (default): oldest first') });

export function registerConversationRoutes({ router, registry, services }: RouteDeps<{ conversations: ConversationsService; runs: RunsService }>) {
  const tag = 'Conversations';
  const svc = services.conversations;

  defineRoute(router, registry, { method: 'post', path: '/v1/conversations', summary: 'Create a conversation with a live agent', tag, body: CreateBodySchema, response: ConversationSchema, status: 201 },
    ({ body, principal }) => {
      assertCustomerPhone(body.customer?.phone);
      return svc.createConversation({ ...scopeOf(principal), ...body });
    });

  defineRoute(router, registry, { method: 'get', path: '/v1/conversations', summary: 'List conversations, newest first', tag, query: ListQuerySchema, response: listOf(ConversationSchema, 'ConversationList') },
    ({ query, principal }) => {
      const { agent_id, status, channel, tag: label, ...page } = query;
      return svc.listConversations({ ...scopeOf(principal), page, agent_id, status, channel, tag: label });
    });

  defineRoute(router, registry, { method: 'get', path: '/v1/conversations/{id}', summary: 'Retrieve a conversation', tag, params: IdParamsSchema, response: ConversationSchema },
    ({ params, principal }) => svc.getConversation({ ...scopeOf(principal), conversationId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/conversations/{id}/close', summary: 'Resolve and close a conversation', tag, params: IdParamsSchema, response: ConversationSchema },
    ({ params, principal }) => svc.closeConversation({ ...scopeOf(principal), conversationId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/conversations/{id}/handoff/close', summary: 'Close the handoff with a note: control returns to the agent', tag,
    params: IdParamsSchema, body: z.strictObject({ note: z.string().min(1).max(5000) }), response: ConversationSchema,
  }, ({ params, body, principal }) => svc.closeHandoff({ ...scopeOf(principal), conversationId: params.id, note: body.note }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/conversations/{id}/messages', tag, raw: true, status: 201, response: ConversationMessageSchema,
    summary: 'Post a message; a customer message starts a run, answered when it settles (or streamed with ?stream=true)',
    params: IdParamsSchema, query: PostMessageQuerySchema, body: PostMessageBodySchema,
    eventStream: { status: 200, description: 'With ?stream=true and a customer message: the run it starts, as server-sent events (as GET /v1/runs/{id}/events)' },
  }, async ({ params, query, body, principal, req, res }) => {
    const stream = query.stream === 'true';
    const posted = await svc.postMessage({ ...scopeOf(principal), conversationId: params.id, ...body, waitMs: stream ? 0 : query.wait_ms });
    if (!stream || !posted.run) {
      res.status(201).json(posted);
      return;
    }
    const runId = posted.run.id;
    await writeSse(req, res, (signal) => services.runs.streamEvents({ ...scopeOf(principal), runId, afterSeq: lastEventId(req), signal }));
  });

  defineRoute(router, registry, {
    method: 'get', path: '/v1/conversations/{id}/messages', summary: 'List the transcript (customer, agent and human turns), oldest first', tag,
    params: IdParamsSchema, query: ListMessagesQuerySchema, response: listOf(ConversationMessageSchema, 'ConversationMessageList'),
  }, ({ params, query, principal }) => {
    const { order, ...page } = query;
    return svc.listMessages({ ...scopeOf(principal), conversationId: params.id, page, order });
  });
}
