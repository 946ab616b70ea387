import { z } from '../domain/api-schema';
import { ChannelSchema } from '../agents/agent.schemas';
import { ActorSchema, HandoffSchema, RunSchema } from '../runs/run.schemas';
import type { ConversationMessageRow, ConversationRow } from './conversation.repo';
import { ConversationNoteSchema } from './conversation-note.schemas';

export const ConversationStatusSchema = z.enum(['active', 'handed_off', 'closed']);

export const CustomerSchema = z.strictObject({
  id: z.string().max(255).optional(),
  name: z.string().max(255).optional(),
  phone: z.string().max(32).optional(),
  // Stored as given (like Stripe's customer email): the channel that uses it validates it.
  email: z.string().max(320).optional(),
  locale: z.string().min(2).max(35).optional(),
});

export const AssigneeSchema = z
  .object({
    id: z.string().describe('cu_ prefix: a console teammate of the account'),
    email: z.string(),
    display_name: z.string().describe('the name their replies are signed with (the email when they set none)'),
  })
  .openapi('Assignee');
export type AssigneeObject = z.infer<typeof AssigneeSchema>;

export const ConversationSchema = z
  .object({
    id: z.string().describe('cnv_ prefix'),
    object: z.literal('conversation'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    agent_id: z.string().nullable().describe('null: a conversation of a number with no agent attached (the team answers it)'),
    channel: ChannelSchema,
    status: ConversationStatusSchema,
    customer: CustomerSchema,
    context: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.string()),
    handoff: HandoffSchema.nullable().describe('the open handoff while status is handed_off'),
    unread: z.boolean().describe('a customer wrote (or the agent handed off) since a teammate last opened it in the console'),
    created_at: z.string(),
    updated_at: z.string(),
    closed_at: z.string().nullable(),
    assignee: AssigneeSchema.nullable().optional().describe('the teammate working the conversation (claimed or assigned in the console), null: nobody; in the secret-key retrieve and list answers (never for a publishable key, never in webhooks)'),
    notes: z.array(ConversationNoteSchema).optional().describe("the team's internal notes, oldest first: only when a secret key retrieves one conversation (never for a publishable key, never in lists or webhooks)"),
    visitor_token: z.string().optional().describe('only when a publishable key opens it: the visitor token to send back in X-Visitor-Token'),
  })
  .openapi('Conversation');
export type ConversationObject = z.infer<typeof ConversationSchema>;

export const MessageCitationSchema = z
  .object({ title: z.string(), url: z.string().nullable() })
  .openapi('MessageCitation');

export const ConversationMessageSchema = z
  .object({
    id: z.string().describe('msg_ prefix'),
    object: z.literal('conversation.message'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    conversation_id: z.string(),
    role: z.enum(['customer', 'agent', 'human', 'system']).describe("system: the service's own message to the customer (a handoff notice; the widget's proactive message, `kind: proactive`), never an agent answer"),
    kind: z.enum(['proactive']).nullable().describe("proactive: the website widget's proactive message, stored (role system, just before the visitor's answer) when the visitor answered it; null otherwise"),
    channel: ChannelSchema.describe('the channel the message came in on (customer) or went out on'),
    content: z.string(),
    attachments: z.array(z.string()),
    run_id: z.string().nullable().describe('the run this message triggered (customer) or that wrote it (agent)'),
    citations: z.array(MessageCitationSchema).describe("an agent answer's cited sources, in the order cited (url null: a source with no page to link to); [] for every other message"),
    author: ActorSchema.nullable().describe('who wrote a human message: a console teammate (`teammate`, with their display name) or an API key (`api_key`); null for customer, agent and system messages'),
    run: RunSchema.optional().describe('in the response to a posted message that triggered a run'),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
  })
  .openapi('ConversationMessage');
export type ConversationMessageObject = z.infer<typeof ConversationMessageSchema>;

export const toConversationObject = (c: ConversationRow): ConversationObject => ({
  id: c.id,
  object: 'conversation',
  livemode: c.livemode,
  agent_id: c.agent_id,
  channel: c.channel,
  status: c.status,
  customer: c.customer as ConversationObject['customer'],
  context: c.context,
  tags: c.tags,
  metadata: c.metadata,
  handoff: (c.handoff as ConversationObject['handoff']) ?? null,
  unread: c.unread,
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
  closed_at: c.closed_at ? c.closed_at.toISOString() : null,
});

export const toConversationMessageObject = (m: ConversationMessageRow, metadata: Record<string, string>): ConversationMessageObject => ({
  id: m.id,
  object: 'conversation.message',
  livemode: m.livemode,
  conversation_id: m.conversation_id,
  role: m.role,
  channel: m.channel,
  content: m.content,
  attachments: m.attachments,
  run_id: m.run_id,
  kind: m.kind ?? null,
  citations: m.citations ?? [],
  author: m.author ?? null,
  metadata,
  created_at: m.created_at.toISOString(),
});
