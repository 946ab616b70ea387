import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/schema';
import type { Scope } from '../db/scope';
import type { ConversationRow } from './conversation.repo';

/** The inbox's tabs: every conversation, the handoff queue (and approvals), mine, active, closed. */
export const INBOX_TABS = ['all', 'queue', 'mine', 'active', 'closed'] as const;
export type InboxTab = (typeof INBOX_TABS)[number];

/** Who reads: a console user's id, or `key` for every key sign-in of the account. */
export interface InboxReader {
  reader: string;
  userId: string | null;
}

/** A conversation as the inbox lists it: unread for this reader, waiting for an approval, its assignee. */
export type InboxRow = ConversationRow & { unread_for_reader: boolean; awaiting_approval: boolean; assignee_email: string | null; match: string | null };

export interface InboxQuery {
  tab: InboxTab;
  test: boolean;
  channel?: string;
  agent_id?: string;
  tag?: string;
  /** A full-text query over the transcripts (already a tsquery of prefix terms), or none. */
  tsquery?: string;
  limit: number;
  /** The last conversation of the page before (its sort key is read from it, in scope). */
  startingAfter?: string;
}

export type InboxCounts = Record<InboxTab | 'unread' | 'test', number>;

/** Conversations of the scope with a tool call waiting for a person's approval. */
const awaitingIds = (scope: Scope) => sql`array(select r.conversation_id from run_tool_calls t join runs r on r.id = t.run_id
  where t.status = 'awaiting_approval' and r.account_id = ${scope.accountId} and r.livemode = ${scope.livemode})`;

const activity = sql`coalesce(c.last_message_at, c.created_at)`;

/**
 * The inbox's reads (SQL only here): pages by tab through the inbox indexes, the per-tab counts, transcript
 * search, per-teammate reads, assignment, the customer's other conversations.
 */
export class InboxRepo {
  async listInbox(db: Kysely<DB>, scope: Scope, who: InboxReader, q: InboxQuery): Promise<InboxRow[]> {
    const where: RawBuilder<unknown>[] = [sql`c.account_id = ${scope.accountId}`, sql`c.livemode = ${scope.livemode}`, sql`c.test = ${q.test}`];
    if (q.tab === 'queue') where.push(sql`(c.status = 'handed_off' or c.id = any(${awaitingIds(scope)}))`);
    if (q.tab === 'mine') where.push(sql`c.assignee_user_id = ${who.userId ?? ''} and c.status <> 'closed'`);
    if (q.tab === 'active') where.push(sql`c.status = 'active'`);
    if (q.tab === 'closed') where.push(sql`c.status = 'closed'`);
    if (q.channel) where.push(sql`c.channel = ${q.channel}`);
    if (q.agent_id) where.push(sql`c.agent_id = ${q.agent_id}`);
    if (q.tag) where.push(sql`c.tags @> ${JSON.stringify([q.tag])}::jsonb`);
    if (q.tsquery) {
      where.push(sql`c.id in (select m.conversation_id from conversation_messages m
        where m.account_id = ${scope.accountId} and m.livemode = ${scope.livemode} and m.search @@ to_tsquery('simple', ${q.tsquery}))`);
    }
    const queue = q.tab === 'queue';
    // The queue: the oldest waiting first (then those a person answered); every other tab: the latest activity first.
    const order = queue ? sql`c.waiting_since asc nulls last, c.id asc` : sql`${activity} desc, c.id desc`;
    if (q.startingAfter) {
      const cursor = await sql<{ waiting_since: Date | null; at: Date }>`select c.waiting_since, ${activity} as at from conversations c
        where c.id = ${q.startingAfter} and c.account_id = ${scope.accountId} and c.livemode = ${scope.livemode}`.execute(db);
      const cur = cursor.rows[0];
      if (cur && queue) {
        where.push(cur.waiting_since === null
          ? sql`c.waiting_since is null and c.id > ${q.startingAfter}`
          : sql`(c.waiting_since > ${cur.waiting_since} or (c.waiting_since = ${cur.waiting_since} and c.id > ${q.startingAfter}) or c.waiting_since is null)`);
      } else if (cur) {
        where.push(sql`(${activity} < ${cur.at} or (${activity} = ${cur.at} and c.id < ${q.startingAfter}))`);
      }
    }
    const page = sql`select c.* from conversations c where ${sql.join(where, sql` and `)} order by ${order} limit ${q.limit}`;
    return this.decorate(db, scope, who, page, queue ? sql`c.waiting_since asc nulls last, c.id asc` : sql`${activity} desc, c.id desc`, q.tsquery);
  }

  /** The same rows by id (the live stream's updates); ids of another scope are left out. */
  async inboxRowsById(db: Kysely<DB>, scope: Scope, who: InboxReader, ids: string[]): Promise<InboxRow[]> {
    if (ids.length === 0) return [];
    const page = sql`select c.* from conversations c where c.id = any(${ids}::text[]) and c.account_id = ${scope.accountId} and c.livemode = ${scope.livemode}`;
    return this.decorate(db, scope, who, page, sql`c.id`);
  }

  /** The account and mode of each conversation (by primary key), as `account:livemode`. */
  async scopesOf(db: Kysely<DB>, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const r = await sql<{ id: string; account_id: string; livemode: boolean }>`select id, account_id, livemode from conversations where id = any(${ids}::text[])`.execute(db);
    return new Map(r.rows.map((x) => [x.id, `${x.account_id}:${x.livemode}`]));
  }

  /** The ids of the scope's conversations with a message or a change after `since` (a stream catching up), latest first. */
  async changedSince(db: Kysely<DB>, scope: Scope, since: Date, limit: number): Promise<string[]> {
    const r = await sql<{ id: string }>`select c.id from conversations c where c.account_id = ${scope.accountId} and c.livemode = ${scope.livemode}
      and (${activity} > ${since} or c.updated_at > ${since}) order by greatest(${activity}, c.updated_at) desc limit ${limit}`.execute(db);
    return r.rows.map((x) => x.id);
  }

  /** A page of conversations with what each row of the inbox shows (computed for the page's rows only). */
  private async decorate(db: Kysely<DB>, scope: Scope, who: InboxReader, page: RawBuilder<unknown>, order: RawBuilder<unknown>, tsquery?: string): Promise<InboxRow[]> {
    const match = tsquery
      ? sql`(select left(m.content, 200) from conversation_messages m where m.conversation_id = c.id and m.search @@ to_tsquery('simple', ${tsquery}) order by m.seq desc limit 1)`
      : sql`null::text`;
    const rows = await sql<InboxRow>`with c as (${page})
      select c.*,
        (c.unread_at is not null and not exists (select 1 from conversation_reads r where r.conversation_id = c.id and r.reader = ${who.reader} and r.read_at >= c.unread_at)) as unread_for_reader,
        exists (select 1 from runs r join run_tool_calls t on t.run_id = r.id where r.conversation_id = c.id and t.status = 'awaiting_approval') as awaiting_approval,
        (select u.email from console_users u where u.id = c.assignee_user_id and u.account_id = ${scope.accountId}) as assignee_email,
        ${match} as match
      from c order by ${order}`.execute(db);
    return rows.rows;
  }

  /**
   * How many conversations each tab holds (open ones for mine and unread), and the test chats: per test flag
   * and status from conversations_tab_counts, the unread from the open conversations that became unread
   * (conversations_open_unread) checked against the reader's reads, mine through conversations_assignee, and
   * the conversations waiting for an approval that are not handed off (few); never a join over every row.
   */
  async counts(db: Kysely<DB>, scope: Scope, who: InboxReader): Promise<InboxCounts> {
    const inScope = sql`c.account_id = ${scope.accountId} and c.livemode = ${scope.livemode}`;
    const r = await sql<Record<string, string>>`with tabs as (
        select c.test, c.status, count(*) as n from conversations c where ${inScope} group by c.test, c.status
      )
      select
        (select coalesce(sum(n), 0) from tabs where not test) as "all",
        (select coalesce(sum(n), 0) from tabs where not test and status = 'handed_off')
          + (select count(*) from conversations c where ${inScope} and not c.test and c.status <> 'handed_off' and c.id = any(${awaitingIds(scope)})) as queue,
        (select count(*) from conversations c where c.assignee_user_id = ${who.userId ?? ''} and ${inScope} and not c.test and c.status <> 'closed') as mine,
        (select coalesce(sum(n), 0) from tabs where not test and status = 'active') as active,
        (select coalesce(sum(n), 0) from tabs where not test and status = 'closed') as closed,
        (select count(*) from conversations c where ${inScope} and not c.test and c.unread_at is not null and c.status <> 'closed'
          and not exists (select 1 from conversation_reads r where r.conversation_id = c.id and r.reader = ${who.reader} and r.read_at >= c.unread_at)) as unread,
        (select coalesce(sum(n), 0) from tabs where test) as test`.execute(db);
    const row = r.rows[0] ?? {};
    return Object.fromEntries(['all', 'queue', 'mine', 'active', 'closed', 'unread', 'test'].map((k) => [k, Number(row[k] ?? 0)])) as InboxCounts;
  }

  /** The reader has seen the conversation as it is now. */
  async markRead(db: Kysely<DB>, conversationId: string, reader: string): Promise<void> {
    await sql`insert into conversation_reads (conversation_id, reader, read_at) values (${conversationId}, ${reader}, now())
      on conflict (conversation_id, reader) do update set read_at = excluded.read_at`.execute(db);
  }

  /** Assigns (or unassigns, null) the conversation; the row, or undefined when it is not in the scope. */
  async assign(db: Kysely<DB>, scope: Scope, conversationId: string, userId: string | null) {
    return db
      .updateTable('conversations')
      .set({ assignee_user_id: userId, updated_at: new Date() })
      .where('id', '=', conversationId)
      .where('account_id', '=', scope.accountId)
      .where('livemode', '=', scope.livemode)
      .returning(['id', 'assignee_user_id'])
      .executeTakeFirst();
  }

  /** The account's teammates who can sign in (console users not disabled), by email. */
  async teammates(db: Kysely<DB>, accountId: string) {
    return db.selectFrom('console_users').select(['id', 'email']).where('account_id', '=', accountId).where('disabled_at', 'is', null).orderBy('email').execute();
  }

  /** The customer's conversations on every channel and with every agent (by phone, email or customer id), newest first. */
  async customerConversations(db: Kysely<DB>, scope: Scope, match: { phone?: string; email?: string; id?: string }, limit: number) {
    const keys: RawBuilder<boolean>[] = [];
    if (match.phone) keys.push(sql<boolean>`customer->>'phone' = ${match.phone}`);
    if (match.email) keys.push(sql<boolean>`lower(customer->>'email') = ${match.email.toLowerCase()}`);
    if (match.id) keys.push(sql<boolean>`customer->>'id' = ${match.id}`);
    if (keys.length === 0) return [];
    return db
      .selectFrom('conversations')
      .select(['id', 'channel', 'status', 'agent_id', 'created_at', 'last_message_at', 'last_message_preview', 'test'])
      .where('account_id', '=', scope.accountId)
      .where('livemode', '=', scope.livemode)
      .where(sql<boolean>`(${sql.join(keys, sql` or `)})`)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * Claims the team email of a conversation that needs the team: at most one per conversation per
   * `intervalMs` (the row's `team_alerted_at` moves only when the last one is older). True: send it.
   */
  async claimTeamAlert(db: Kysely<DB>, conversationId: string, intervalMs: number): Promise<boolean> {
    const r = await sql`update conversations set team_alerted_at = now()
      where id = ${conversationId} and (team_alerted_at is null or team_alerted_at < now() - make_interval(secs => ${intervalMs / 1000}))`.execute(db);
    return Number(r.numAffectedRows ?? 0) > 0;
  }
}
