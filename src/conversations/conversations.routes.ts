import { E164Schema, z } from '../domain/api-schema';
import { ChannelSchema } from '../agents/agent.schemas';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import type { RunsService } from '../runs/runs.service';
import { IdParamsSchema, listOf, MetadataSchema, PageQuerySchema } from '../http/schemas';
import { lastEventId, writeSse } from '../http/sse';
import { ConversationMessageSchema, ConversationSchema, ConversationStatusSchema, CustomerSchema } from './conversation.schemas';
import { scopeOf } from '../domain/principal';
import { AppError } from '../domain/errors';
import { assertCustomerPhone, type ConversationsService } from './conversations.service';
import type { ConversationStreamService } from './conversation-stream.service';
import type { VisitorConversationsService } from './visitor-conversations.service';
import { MAX_NOTES_PER_CONVERSATION, type ConversationNotesService } from './conversation-notes.service';
import { ConversationNoteSchema, CreateNoteBodySchema } from './conversation-note.schemas';
import type { Principal, VisitorPrincipal } from '../domain/principal';

/**
 * Who may read a conversation's stream: the one place its authorization is decided (secret keys read their
 * account's and mode's conversations, like every other route; a website visitor only their own, as
 * canVisitorRead decides for every visitor read).
 */
async function authorizeConversationStream(stream: ConversationStreamService, principal: Principal | undefined, visitor: VisitorPrincipal | undefined, conversationId: string) {
  if (visitor) return stream.readableConversation({ ...scopeOf(visitor), conversationId, visitor });
  return stream.readableConversation({ ...scopeOf(principal!), conversationId });
}

const CONVERSATION_STREAM_EVENTS = [
  'Server-sent events, each with `id` (its number in the conversation; send the last one back as `Last-Event-ID`, or `?last_event_id=`, to resume with exactly what was missed), `event` and a JSON `data` line:',
  '- `conversation.message`: a message as it is written (customer, agent, human or system: a handoff notice, the widget\'s answered proactive message with `kind: proactive`); `data` is the conversation message object (an agent answer\'s sources in `citations`).',
  '- `reply.delta`: `{run_id, text}`, the agent\'s reply as the planner produces it (already redacted); the `conversation.message` with role agent that follows holds the whole reply, equal to the concatenated deltas of its run.',
  '- `reply.retracted`: `{run_id, reason}`, the deltas streamed for `run_id` are withdrawn (`handoff`: the finished run handed off instead of answering, e.g. low_confidence or restricted_topic; `tool_calls`: the planner called tools after all; `retried`: the planner step is tried again and streams afresh; `failed`: the run failed; `edited`: the stored reply differs from the streamed text, which the message replaces).',
  '- `conversation.handoff`: `{conversation_id, status: handed_off, handoff}`; `conversation.handoff.closed`: `{conversation_id, status: active}`.',
  '- `conversation.closed`: `{conversation_id, status: closed}`; the stream ends after it.',
  '- `typing`: `{conversation_id, role: human, expires_in_ms}`, a person is typing in the console; not stored, no `id`.',
  'Without Last-Event-ID the stream starts with the conversation\'s first event. A comment line every 15 s keeps idle connections open.',
].join('\n');

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
  answers_proactive: z.boolean().optional().describe("publishable key only: true when the visitor answers the widget's proactive message; it is then stored just before this message, as the conversation's opening turn (role system, kind proactive), if the conversation has no message yet and the agent still has one"),
});

const PostMessageQuerySchema = z.strictObject({
  wait_ms: z.coerce.number().int().min(0).max(60_000).optional().describe('how long to wait for the run to settle (default 20000; 0 answers at once)'),
  stream: z.enum(['true', 'false']).optional().describe('true: answer 200 text/event-stream with the run as server-sent events (a customer message; otherwise 201 JSON)'),
});

const ListMessagesQuerySchema = PageQuerySchema.extend({ order: z.enum(['asc', 'desc']).optional().describe('asc (default): oldest first') });

export function registerConversationRoutes({ router, registry, services }: RouteDeps<{ conversations: ConversationsService; runs: RunsService; conversationStream: ConversationStreamService; visitorConversations: VisitorConversationsService; conversationNotes: ConversationNotesService }>) {
  const tag = 'Conversations';
  const svc = services.conversations;
  const visitors = services.visitorConversations;

  defineRoute(router, registry, {
    method: 'post', path: '/v1/conversations', summary: 'Create a conversation with a live agent', tag, body: CreateBodySchema, response: ConversationSchema, status: 201, visitor: true,
    description: "With a publishable key (a website visitor): only `agent_id` (the key's agent) and `channel: chat`; the answer carries the `visitor_token`.",
  }, ({ body, principal, visitor }) => {
    if (visitor) {
      const { agent_id, channel, ...rest } = body;
      const extra = Object.keys(rest)[0];
      if (extra) throw new AppError('publishable_key_not_allowed', `A publishable key cannot set ${extra}: your server sets it with a secret key (the customer comes from the identity JWT)`, { param: extra });
      if (channel !== undefined && channel !== 'chat') throw new AppError('publishable_key_not_allowed', 'A publishable key opens chat conversations only', { param: 'channel' });
      return visitors.openVisitorConversation({ visitor, agentId: agent_id });
    }
    assertCustomerPhone(body.customer?.phone);
    return svc.createConversation({ ...scopeOf(principal), ...body });
  });

  defineRoute(router, registry, { method: 'get', path: '/v1/conversations', summary: 'List conversations, newest first', tag, query: ListQuerySchema, response: listOf(ConversationSchema, 'ConversationList'), visitor: true,
    description: "With a secret key each conversation carries its `assignee`. With a publishable key: the visitor's own conversations with the key's agent (no assignee)." },
    async ({ query, principal, visitor }) => {
      const { agent_id, status, channel, tag: label, ...page } = query;
      if (visitor) return visitors.listVisitorConversations({ visitor, page, status, agentId: agent_id });
      const list = await svc.listConversations({ ...scopeOf(principal), page, agent_id, status, channel, tag: label });
      return { ...list, data: await svc.withAssignees({ ...scopeOf(principal), conversations: list.data }) };
    });

  defineRoute(router, registry, {
    method: 'get', path: '/v1/conversations/{id}', summary: 'Retrieve a conversation', tag, params: IdParamsSchema, response: ConversationSchema, visitor: true,
    description: "With a secret key the conversation carries the team's internal `notes` and its `assignee`; with a publishable key (a visitor) it carries neither.",
  }, async ({ params, principal, visitor }) => {
    if (visitor) return visitors.getVisitorConversation({ visitor, conversationId: params.id });
    const [conversation] = await svc.withAssignees({ ...scopeOf(principal), conversations: [await svc.getConversation({ ...scopeOf(principal), conversationId: params.id })] });
    return { ...conversation!, notes: await services.conversationNotes.listNotes({ ...scopeOf(principal), conversationId: conversation.id }) };
  });

  defineRoute(router, registry, {
    method: 'post', path: '/v1/conversations/{id}/notes', summary: 'Add an internal note (for the team only: never sent, never in the transcript)', tag,
    params: IdParamsSchema, body: CreateNoteBodySchema, response: ConversationNoteSchema, status: 201,
    description: `A conversation keeps at most ${MAX_NOTES_PER_CONVERSATION} notes (422 parameter_unprocessable past them): every one is listed on the conversation.`,
  }, ({ params, body, principal }) => services.conversationNotes.addNote({ ...scopeOf(principal), conversationId: params.id, body: body.body, author: { keyId: principal.keyId, name: `API key ${principal.keyId}` } }));

  defineRoute(router, registry, { method: 'post', path: '/v1/conversations/{id}/close', summary: 'Resolve and close a conversation', tag, params: IdParamsSchema, response: ConversationSchema },
    ({ params, principal }) => svc.closeConversation({ ...scopeOf(principal), conversationId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/conversations/{id}/handoff/close', summary: 'Close the handoff with a note: control returns to the agent', tag,
    params: IdParamsSchema, body: z.strictObject({ note: z.string().min(1).max(5000) }), response: ConversationSchema,
  }, ({ params, body, principal }) => svc.closeHandoff({ ...scopeOf(principal), conversationId: params.id, note: body.note }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/conversations/{id}/messages', tag, raw: true, status: 201, response: ConversationMessageSchema, visitor: true,
    summary: 'Post a message; a customer message starts a run, answered when it settles (or streamed with ?stream=true)',
    params: IdParamsSchema, query: PostMessageQuerySchema, body: PostMessageBodySchema,
    eventStream: { status: 200, description: 'With ?stream=true and a customer message: the run it starts, as server-sent events (as GET /v1/runs/{id}/events)' },
  }, async ({ params, query, body, principal, visitor, req, res }) => {
    const stream = query.stream === 'true';
    const waitMs = stream ? 0 : query.wait_ms;
    if (visitor && (body.role !== 'customer' || body.trigger_run === false)) {
      throw new AppError('publishable_key_not_allowed', "A publishable key posts the visitor's customer messages only", { param: body.role !== 'customer' ? 'role' : 'trigger_run' });
    }
    const { answers_proactive: answersProactive, ...message } = body;
    if (!visitor && answersProactive === true) {
      throw new AppError('parameter_invalid', "answers_proactive is the website widget's: only a publishable key's visitor answers its proactive message", { param: 'answers_proactive' });
    }
    const posted = visitor
      ? await visitors.postVisitorMessage({ visitor, conversationId: params.id, content: body.content, attachments: body.attachments, waitMs, answersProactive })
      : await svc.postMessage({ ...scopeOf(principal), conversationId: params.id, ...message, waitMs, author: body.role === 'human' ? { type: 'api_key', id: principal.keyId, name: null } : undefined });
    if (!stream || !posted.run) {
      res.status(201).json(posted);
      return;
    }
    const runId = posted.run.id;
    const scope = visitor ? scopeOf(visitor) : scopeOf(principal);
    // A visitor's stream also ends when their publishable key is revoked.
    await writeSse(req, res, (signal) => services.runs.streamEvents({ ...scope, runId, afterSeq: lastEventId(req), signal: visitor ? AbortSignal.any([signal, visitor.revoked]) : signal }));
  });

  defineRoute(router, registry, {
    method: 'get', path: '/v1/conversations/{id}/events', tag, raw: true, params: IdParamsSchema,
    summary: 'The conversation as server-sent events (messages, reply deltas, handoff, close, typing); resumes after Last-Event-ID',
    description: CONVERSATION_STREAM_EVENTS,
    eventStream: { status: 200, description: CONVERSATION_STREAM_EVENTS }, visitor: true,
  }, async ({ params, principal, visitor, req, res }) => {
    const conversation = await authorizeConversationStream(services.conversationStream, principal, visitor, params.id);
    // A visitor's stream also ends when their publishable key is revoked.
    const streamSignal = (signal: AbortSignal) => (visitor ? AbortSignal.any([signal, visitor.revoked]) : signal);
    await writeSse(req, res, (signal) => services.conversationStream.streamEvents({ conversation, afterSeq: lastEventId(req), signal: streamSignal(signal) }));
  });

  defineRoute(router, registry, {
    method: 'get', path: '/v1/conversations/{id}/messages', summary: 'List the transcript (customer, agent and human turns), oldest first', tag,
    params: IdParamsSchema, query: ListMessagesQuerySchema, response: listOf(ConversationMessageSchema, 'ConversationMessageList'), visitor: true,
  }, ({ params, query, principal, visitor }) => {
    const { order, ...page } = query;
    if (visitor) return visitors.listVisitorMessages({ visitor, conversationId: params.id, page, order });
    return svc.listMessages({ ...scopeOf(principal), conversationId: params.id, page, order });
  });
}
