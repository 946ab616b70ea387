import type { Kysely } from 'kysely';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import type { ConversationStatus } from '../db/tables/agents';
import { notFound } from '../domain/errors';
import { scopeOf, type VisitorPrincipal } from '../domain/principal';
import { canVisitorRead } from '../domain/visitor-access';
import { redactDeep } from '../privacy/redaction';
import { ConversationRepo, type ConversationRow } from './conversation.repo';
import { toConversationObject, type ConversationObject } from './conversation.schemas';
import type { ConversationsService } from './conversations.service';

/**
 * A website visitor's conversations, through a publishable key: only their own with the key's agent (see
 * canVisitorRead; anything else is not found). Creating and posting go through ConversationsService.
 */
export class VisitorConversationsService {
  private readonly repo = new ConversationRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      conversations: Pick<ConversationsService, 'createConversation' | 'postMessage' | 'listMessages'>;
      /** The agent's proactive message as the widget shows it now (its settings); null: none. */
      proactiveMessageOf: (agentId: string) => Promise<string | null>;
    },
  ) {}

  /**
   * A website visitor opens a chat with the publishable key's agent (another agent's id is not found): the
   * conversation is theirs (their visitor id) and, with a verified identity JWT, their customer's.
   */
  async openVisitorConversation(input: { visitor: VisitorPrincipal; agentId: string }): Promise<ConversationObject> {
    const { visitor } = input;
    if (input.agentId !== visitor.agentId) throw notFound('agent', input.agentId, 'agent_id');
    const conversation = await this.deps.conversations.createConversation({
      ...scopeOf(visitor),
      agent_id: visitor.agentId,
      channel: 'chat',
      customer: visitor.customer,
      visitorId: visitor.visitorId,
    });
    return { ...conversation, visitor_token: visitor.visitorToken };
  }

  /** The visitor's own conversations with the key's agent, newest first (see canVisitorRead); another `agentId` lists none. */
  async listVisitorConversations(input: { visitor: VisitorPrincipal; page: PageParams; status?: ConversationStatus; agentId?: string }) {
    const { visitor } = input;
    if (input.agentId !== undefined && input.agentId !== visitor.agentId) return { object: 'list' as const, data: [], has_more: false };
    const result = await this.repo.listVisitorConversations(this.deps.db, scopeOf(visitor), input.page, {
      agentId: visitor.agentId, visitorId: visitor.visitorId, customerId: visitor.customer?.id, status: input.status,
    });
    return { object: 'list' as const, data: result.data.filter((c) => canVisitorRead(visitor, c)).map(toConversationObject), has_more: result.has_more };
  }

  async getVisitorConversation(input: { visitor: VisitorPrincipal; conversationId: string }): Promise<ConversationObject> {
    return toConversationObject(await this.getVisitorRow(input.visitor, input.conversationId));
  }

  async listVisitorMessages(input: { visitor: VisitorPrincipal; conversationId: string; page: PageParams; order?: 'asc' | 'desc' }) {
    const conversation = await this.getVisitorRow(input.visitor, input.conversationId);
    return this.deps.conversations.listMessages({ ...scopeOf(input.visitor), conversationId: conversation.id, page: input.page, order: input.order });
  }

  /**
   * A website visitor's customer message on their own conversation (role customer only; it always starts a
   * run as the agent's customer turn). A visitor who now carries an identity JWT links the anonymous
   * conversation they started to that customer (customer.id = the JWT's `sub`), so it follows them.
   * `answersProactive`: the message answers the widget's proactive message, which is then stored just
   * before it (the agent's text as its settings have it now, never text from the page; nothing when the
   * agent has none any more; see ConversationsService.postMessage).
   */
  async postVisitorMessage(input: { visitor: VisitorPrincipal; conversationId: string; content: string; attachments?: string[]; waitMs?: number; answersProactive?: boolean }) {
    const { visitor } = input;
    const row = await this.getVisitorRow(visitor, input.conversationId);
    if (visitor.customer && row.customer.id === undefined) {
      await this.repo.setCustomer(this.deps.db, row.id, redactDeep({ ...row.customer, ...visitor.customer }));
    }
    const proactive = input.answersProactive ? await this.deps.proactiveMessageOf(visitor.agentId) : null;
    return this.deps.conversations.postMessage({
      ...scopeOf(visitor), conversationId: row.id, role: 'customer', content: input.content, attachments: input.attachments, waitMs: input.waitMs,
      ...(proactive ? { answersProactive: { content: proactive } } : {}),
    });
  }

  /** A conversation the visitor may read (canVisitorRead); anything else is not found. */
  private async getVisitorRow(visitor: VisitorPrincipal, conversationId: string): Promise<ConversationRow> {
    const row = await this.repo.getConversationById(this.deps.db, scopeOf(visitor), conversationId);
    if (!row || !canVisitorRead(visitor, row)) throw notFound('conversation', conversationId);
    return row;
  }
}
