import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { paginate, type PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import type { ConversationMessageTable, ConversationStatus, ConversationTable, MessageKind, RunTable } from '../db/tables/agents';
import { insertRunAfter, runFromJson } from '../runs/run.repo';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;
export type ConversationRow = Selectable<ConversationTable>;
export type ConversationMessageRow = Selectable<ConversationMessageTable>;

export interface ConversationListFilter {
  agent_id?: string;
  status?: ConversationStatus;
  channel?: string;
  tag?: string;
  /** Console test chats instead of real conversations (default false). */
  test?: boolean;
  /** The console's handoff queue: `status: handed_off` also lists conversations whose run waits for an approval. */
  queueWithApprovals?: boolean;
}

/** A conversation about to take a message, with its agent's live version (so posting reads no agent row). */
export type ConversationToPost = ConversationRow & { agent_live_version: number | null };
const AGENT_LIVE_VERSION = sql<number | null>`(select a.live_version from agents a where a.id = conversations.agent_id)`.as('agent_live_version');

/** A run of the conversation waits for a tool approval. */
const AWAITING_APPROVAL = sql<boolean>`exists (select 1 from runs r where r.conversation_id = conversations.id and r.status = 'requires_action' and r.required_action->>'type' = 'approve_tool_call')`;

export class ConversationRepo {
  async insertConversation(db: Db, row: Insertable<ConversationTable>) {
    // Unread from the start (a team conversation): every teammate sees it unread.
    return db.insertInto('conversations').values(row.unread ? { ...row, unread_at: new Date() } : row).returningAll().executeTakeFirstOrThrow();
  }

  async getConversation(db: Db, id: string) {
    return db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getConversationById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('conversations').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async getConversationToPost(db: Db, scope: Scope, id: string): Promise<ConversationToPost | undefined> {
    return db.selectFrom('conversations').selectAll().select(AGENT_LIVE_VERSION).where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async listConversations(db: Kysely<DB>, scope: Scope, page: PageParams, f: ConversationListFilter) {
    let q = db.selectFrom('conversations').selectAll().where(inScope(scope)).where('test', '=', f.test ?? false);
    if (f.agent_id) q = q.where('agent_id', '=', f.agent_id);
    // The handoff queue: handed off, or waiting for a person to approve a tool call (console-approvals.md).
    if (f.status === 'handed_off' && f.queueWithApprovals) q = q.where((eb) => eb.or([eb('status', '=', 'handed_off'), AWAITING_APPROVAL]));
    else if (f.status) q = q.where('status', '=', f.status);
    if (f.channel) q = q.where('channel', '=', f.channel as ConversationRow['channel']);
    if (f.tag) q = q.where(sql<boolean>`tags @> ${JSON.stringify([f.tag])}::jsonb`);
    return paginate(db, 'conversations', q, page);
  }

  /**
   * A website visitor's conversations with one agent: those linked to their customer id (a verified JWT),
   * and the anonymous ones their visitor token opened.
   */
  async listVisitorConversations(db: Kysely<DB>, scope: Scope, page: PageParams, f: { agentId: string; visitorId: string; customerId?: string; status?: ConversationStatus }) {
    let q = db
      .selectFrom('conversations')
      .selectAll()
      .where(inScope(scope))
      .where('agent_id', '=', f.agentId)
      .where('test', '=', false)
      .where((eb) => {
        const anonymous = eb.and([eb('visitor_id', '=', f.visitorId), sql<boolean>`not (customer ? 'id')`]);
        return f.customerId ? eb.or([anonymous, sql<boolean>`customer->>'id' = ${f.customerId}`]) : anonymous;
      });
    if (f.status) q = q.where('status', '=', f.status);
    return paginate(db, 'conversations', q, page);
  }

  /** Replaces the customer (already redacted) of a conversation. */
  async setCustomer(db: Db, id: string, customer: Record<string, unknown>) {
    await db.updateTable('conversations').set({ customer: JSON.stringify(customer), updated_at: new Date() }).where('id', '=', id).execute();
  }

  /** Sets the status (and handoff) unless the conversation is closed; undefined when it is. */
  async setStatus(db: Db, id: string, status: ConversationStatus, set: { handoff?: string | null; closed_at?: Date; unread?: boolean } = {}) {
    return db
      .updateTable('conversations')
      .set({ status, ...set, ...(set.unread ? { unread_at: new Date() } : {}), updated_at: new Date() })
      .where('id', '=', id)
      .where('status', '!=', 'closed')
      .returningAll()
      .executeTakeFirst();
  }

  /** Sets the inbox's unread marker; the conversation's updated_at moves when it becomes unread (a new message). */
  /** The assignee (a console user of the same account) of each of these conversations of the scope that has one. */
  async assigneesOf(db: Db, scope: Scope, ids: string[]) {
    if (ids.length === 0) return [];
    return db
      .selectFrom('conversations as c')
      .innerJoin('console_users as u', (j) => j.onRef('u.id', '=', 'c.assignee_user_id').onRef('u.account_id', '=', 'c.account_id'))
      .select(['c.id as conversation_id', 'u.id', 'u.email', 'u.display_name'])
      .where('c.id', 'in', ids)
      .where('c.account_id', '=', scope.accountId)
      .where('c.livemode', '=', scope.livemode)
      .execute();
  }

  async setUnread(db: Db, id: string, unread: boolean) {
    await db.updateTable('conversations').set(unread ? { unread, unread_at: new Date(), updated_at: new Date() } : { unread }).where('id', '=', id).execute();
  }

  async setChannel(db: Db, id: string, channel: ConversationRow['channel']) {
    await db.updateTable('conversations').set({ channel, updated_at: new Date() }).where('id', '=', id).execute();
  }

  /** The customer's latest conversation with the agent that is not closed, by phone, email or customer id. */
  async findOpenConversationOfCustomer(db: Db, scope: Scope, agentId: string | null, match: { phone?: string; email?: string; id?: string }): Promise<ConversationToPost | undefined> {
    const keys: ReturnType<typeof sql<boolean>>[] = [];
    if (match.phone) keys.push(sql<boolean>`customer->>'phone' = ${match.phone}`);
    if (match.email) keys.push(sql<boolean>`lower(customer->>'email') = ${match.email.toLowerCase()}`);
    if (match.id) keys.push(sql<boolean>`customer->>'id' = ${match.id}`);
    if (keys.length === 0) return undefined;
    return db
      .selectFrom('conversations')
      .selectAll()
      .select(AGENT_LIVE_VERSION)
      .where(inScope(scope))
      .where((eb) => (agentId === null ? eb('agent_id', 'is', null) : eb('agent_id', '=', agentId)))
      .where('test', '=', false)
      .where('status', '!=', 'closed')
      .where(sql<boolean>`(${sql.join(keys, sql` or `)})`)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async insertMessage(db: Db, row: Insertable<ConversationMessageTable>) {
    return db
      .insertInto('conversation_messages')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * A customer message and the run answering it, in one statement (atomic without a transaction): the
   * run is written only if the message is (a replayed post writes neither). The run row as inserted, or
   * undefined when the message existed already.
   */
  async insertMessageWithRun(db: Db, message: Insertable<ConversationMessageTable>, run: Insertable<RunTable>) {
    const runInsert = insertRunAfter(run, 'm');
    const row = await db
      .with('m', (qb) => qb.insertInto('conversation_messages').values(message).onConflict((oc) => oc.column('id').doNothing()).returningAll())
      .with('r', (qb) => qb.insertInto('runs').columns(runInsert.columns).expression(runInsert.select).returningAll())
      .selectFrom('m')
      .selectAll('m')
      .select(sql<unknown>`(select to_jsonb(r) from r)`.as('run_json'))
      .executeTakeFirst();
    if (!row) return undefined;
    const { run_json, ...inserted } = row;
    return { message: inserted as ConversationMessageRow, run: runFromJson(run_json) };
  }

  /**
   * A conversation's opening `system` turn (the widget's proactive message the visitor answered), written
   * only while the conversation has no message, a millisecond before the transaction's time (so the
   * message written next in the same transaction, the visitor's answer, lists after it); undefined when
   * the conversation had a message already or this id was written before.
   */
  async insertOpeningMessage(db: Db, row: { id: string; account_id: string; livemode: boolean; conversation_id: string; channel: ConversationRow['channel']; content: string; kind: MessageKind }) {
    const inserted = await sql<ConversationMessageRow>`insert into conversation_messages (id, account_id, livemode, conversation_id, role, channel, content, attachments, kind, created_at)
      select ${row.id}, ${row.account_id}, ${row.livemode}, ${row.conversation_id}, 'system', ${row.channel}, ${row.content}, '[]'::jsonb, ${row.kind}, now() - interval '1 millisecond'
      where not exists (select 1 from conversation_messages where conversation_id = ${row.conversation_id})
      on conflict (id) do nothing returning *`.execute(db);
    return inserted.rows[0];
  }

  /** The conversation's latest message (by its sequence number). */
  async latestMessage(db: Db, conversationId: string) {
    return db.selectFrom('conversation_messages').select(['id', 'role']).where('conversation_id', '=', conversationId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  }

  /** The customer's yes to the resolution question, as a thumbs-up on the answer (analytics: a confirmed resolution); once per reply. */
  async insertConfirmation(db: Db, row: { id: string; account_id: string; livemode: boolean; conversation_id: string; message_id: string; created_at?: Date }) {
    // One vote per answer (conversation_feedback_one_vote): a yes turns a thumbs-down on the same answer into a thumbs-up; a redelivered yes changes nothing.
    await db.insertInto('conversation_feedback').values({ ...row, rating: 'up' })
      .onConflict((oc) => oc.columns(['conversation_id', 'message_id']).doUpdateSet({ rating: 'up', created_at: sql`now()` }).where('conversation_feedback.rating', '!=', 'up'))
      .execute();
  }

  async getMessage(db: Db, id: string) {
    return db.selectFrom('conversation_messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listMessages(db: Kysely<DB>, scope: Scope, conversationId: string, page: PageParams, order: 'asc' | 'desc') {
    const q = db.selectFrom('conversation_messages').selectAll().where(inScope(scope)).where('conversation_id', '=', conversationId);
    return paginate(db, 'conversation_messages', q, page, order);
  }

  /** The transcript before a message, oldest first (at most `limit` of the latest turns). */
  async listTranscriptBefore(db: Db, conversationId: string, beforeSeq: number, limit: number) {
    const rows = await db
      .selectFrom('conversation_messages')
      .select(['role', 'content', 'seq', 'channel', 'created_at'])
      .where('conversation_id', '=', conversationId)
      .where('seq', '<', beforeSeq)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }
}
