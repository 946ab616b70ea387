import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { scopeOf, type Scope } from '../domain/principal';
import { ConversationRepo } from './conversation.repo';
import { QueueRepo } from './queue.repo';
import { InboxRepo, type InboxCounts, type InboxQuery, type InboxReader, type InboxRow, type InboxTab } from './inbox.repo';

export { INBOX_TABS, type InboxCounts, type InboxReader, type InboxRow, type InboxTab } from './inbox.repo';

/** Conversations per inbox page. */
export const INBOX_PAGE = 50;
/** At most this many words of a search are used (each a prefix). */
const MAX_SEARCH_TERMS = 8;

/**
 * A search as a tsquery of prefix terms (`refund:* & order:*`), from the letters and digits of what was
 * typed (nothing else reaches to_tsquery, so no input is a tsquery syntax error); undefined: no words.
 */
export function searchQuery(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const words = text.slice(0, 200).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = [...new Set(words)].slice(0, MAX_SEARCH_TERMS);
  return terms.length === 0 ? undefined : terms.map((w) => `${w}:*`).join(' & ');
}

/** A teammate who can sign in (a console user of the account). */
export interface Teammate {
  id: string;
  email: string;
}

/**
 * The support team's inbox: pages by tab (every conversation, the handoff queue with the conversations
 * waiting for an approval, mine, active, closed) with unread per teammate, the last message, "waiting
 * since", the assignee; counts per tab; search over transcripts (PostgreSQL full text, per account and mode);
 * claim and assign; the customer's other conversations.
 */
export class InboxService {
  private readonly repo = new InboxRepo();
  private readonly conversations = new ConversationRepo();
  private readonly queues = new QueueRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  async listInbox(input: Scope & { who: InboxReader; tab: InboxTab; test: boolean; channel?: string; agent_id?: string; tag?: string; search?: string; startingAfter?: string }) {
    const query: InboxQuery = { ...input, tsquery: searchQuery(input.search), limit: INBOX_PAGE + 1 };
    const rows = await this.repo.listInbox(this.deps.db, scopeOf(input), input.who, query);
    return { data: rows.slice(0, INBOX_PAGE), has_more: rows.length > INBOX_PAGE };
  }

  /** The inbox rows of these conversations that are in the scope (another scope's are left out). */
  async inboxRows(input: Scope & { who: InboxReader; ids: string[] }): Promise<InboxRow[]> {
    return this.repo.inboxRowsById(this.deps.db, scopeOf(input), input.who, input.ids);
  }

  /** Each conversation's account and mode (`account:livemode`); unknown ids are left out. */
  async scopesOf(ids: string[]): Promise<Map<string, string>> {
    return this.repo.scopesOf(this.deps.db, ids);
  }

  /** The rows of the scope's conversations changed after `since` (at most 100, latest first). */
  async changedSince(input: Scope & { who: InboxReader; since: Date }): Promise<InboxRow[]> {
    const ids = await this.repo.changedSince(this.deps.db, scopeOf(input), input.since, 100);
    return this.inboxRows({ ...input, ids });
  }

  async counts(input: Scope & { who: InboxReader }): Promise<InboxCounts> {
    return this.repo.counts(this.deps.db, scopeOf(input), input.who);
  }

  /** The teammate has opened the conversation: read for them (the conversation's own `unread` clears too). */
  async markRead(input: Scope & { conversationId: string; reader: string }): Promise<void> {
    const row = await this.conversations.getConversationById(this.deps.db, scopeOf(input), input.conversationId);
    if (!row) throw notFound('conversation', input.conversationId);
    await this.repo.markRead(this.deps.db, row.id, input.reader);
    if (row.unread) await this.conversations.setUnread(this.deps.db, row.id, false);
  }

  async teammates(input: { accountId: string }): Promise<Teammate[]> {
    return this.repo.teammates(this.deps.db, input.accountId);
  }

  /** The teammate the conversation is assigned to (null: nobody). */
  async assigneeOf(input: Scope & { conversationId: string }): Promise<string | null> {
    const row = await this.conversations.getConversationById(this.deps.db, scopeOf(input), input.conversationId);
    if (!row) throw notFound('conversation', input.conversationId);
    return row.assignee_user_id;
  }

  /** Assigns the conversation to a teammate of its account (null: unassigned); another account's user is refused. */
  async assign(input: Scope & { conversationId: string; userId: string | null }): Promise<void> {
    if (input.userId !== null && !(await this.teammates(input)).some((t) => t.id === input.userId)) {
      throw new AppError('parameter_unprocessable', `No teammate '${input.userId}' in this account (or they are disabled)`, { param: 'user_id' });
    }
    const row = await this.repo.assign(this.deps.db, scopeOf(input), input.conversationId, input.userId);
    if (!row) throw notFound('conversation', input.conversationId);
  }

  /** The customer's other conversations on every channel (by phone, email or customer id), newest first. */
  async customerConversations(input: Scope & { customer: Record<string, unknown>; exceptId: string }) {
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const rows = await this.repo.customerConversations(this.deps.db, scopeOf(input), { phone: str(input.customer.phone), email: str(input.customer.email), id: str(input.customer.id) }, 21);
    return rows.filter((r) => r.id !== input.exceptId).slice(0, 20);
  }

  /**
   * The team's email about a conversation that needs a person now (handed off, and unread since the last
   * email: a handoff, or a customer message while a person holds it), claimed so that one process sends it,
   * at most once per conversation per `intervalMs`. Recipients: the assignee; else the teammates of the
   * queue it was handed off to (docs/decisions/inbox-queue-teammates.md); else (no such queue, or it names
   * nobody who can sign in) every teammate of the account. Undefined: nothing to send (a test chat or a
   * test-mode conversation, nothing new, sent recently, nobody to tell).
   */
  async claimTeamAlert(conversationId: string, intervalMs: number) {
    const c = await this.conversations.getConversation(this.deps.db, conversationId);
    // Test mode never reaches a real relay (as its email replies are never sent): its handoffs wait in the inbox.
    if (!c || c.test || !c.livemode || c.status !== 'handed_off' || !c.unread_at) return undefined;
    if (c.team_alerted_at && c.team_alerted_at >= c.unread_at) return undefined;
    const team = await this.teammates({ accountId: c.account_id });
    const queue = (c.handoff as { queue?: unknown } | null)?.queue;
    const members = !c.assignee_user_id && typeof queue === 'string' ? await this.queues.activeMembersByName(this.deps.db, scopeOf({ accountId: c.account_id, livemode: c.livemode }), queue) : [];
    const to = c.assignee_user_id ? team.filter((t) => t.id === c.assignee_user_id) : members.length > 0 ? members : team;
    if (to.length === 0 || !(await this.repo.claimTeamAlert(this.deps.db, c.id, intervalMs))) return undefined;
    return { conversation: c, to: to.map((t) => t.email) };
  }
}
