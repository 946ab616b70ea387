import { type Kysely, sql } from 'kysely';

/**
 * The inbox a support team works in (docs/decisions/inbox-live-stream.md, inbox-notes-and-saved-replies.md):
 * - conversations carry their last message (preview, role, time) and `waiting_since` (the oldest customer
 *   message no agent, person or close has answered), kept by a trigger on conversation_messages, so the
 *   inbox's first page and the handoff queue (oldest waiting first) read one table through an index;
 * - `unread_at` (when it last became unread) beside the per-teammate reads (`conversation_reads`; a key
 *   sign-in reads as `key`): unread for a teammate = became unread after their last read;
 * - `assignee_user_id` (a console user of the account; "Mine"), `team_alerted_at` (team emails, at most one
 *   per conversation per 5 minutes);
 * - internal notes (`conversation_notes`), saved replies (`saved_replies`), both per account and mode;
 * - transcript search: a `simple` tsvector of each message with a GIN index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table conversations
    add column last_message_at timestamptz,
    add column last_message_preview text,
    add column last_message_role text,
    add column waiting_since timestamptz,
    add column unread_at timestamptz,
    add column assignee_user_id text references console_users(id) on delete set null,
    add column team_alerted_at timestamptz`.execute(db);
  await sql`update conversations c set last_message_at = m.created_at, last_message_preview = left(m.content, 200), last_message_role = m.role
    from (select distinct on (conversation_id) conversation_id, created_at, content, role from conversation_messages order by conversation_id, seq desc) m
    where m.conversation_id = c.id`.execute(db);
  await sql`update conversations set unread_at = updated_at where unread`.execute(db);
  await sql`update conversations c set waiting_since = coalesce((select min(m.created_at) from conversation_messages m where m.conversation_id = c.id and m.role = 'customer'
      and m.seq > coalesce((select max(a.seq) from conversation_messages a where a.conversation_id = c.id and a.role in ('agent', 'human')), 0)), c.updated_at)
    where c.status = 'handed_off'`.execute(db);
  await sql`create function conversation_message_summary() returns trigger language plpgsql as $$
    begin
      update conversations set
        last_message_at = new.created_at,
        last_message_preview = left(new.content, 200),
        last_message_role = new.role,
        waiting_since = case when new.role = 'customer' then coalesce(waiting_since, new.created_at)
                             when new.role in ('agent', 'human') then null else waiting_since end
      where id = new.conversation_id;
      return null;
    end $$`.execute(db);
  await sql`create trigger conversation_messages_summary after insert on conversation_messages
    for each row execute function conversation_message_summary()`.execute(db);
  // The inbox's pages: newest activity first, and the handoff queue oldest waiting first.
  await sql`create index conversations_inbox on conversations (account_id, livemode, test, (coalesce(last_message_at, created_at)) desc, id desc)`.execute(db);
  await sql`create index conversations_queue on conversations (account_id, livemode, test, waiting_since, id) where status = 'handed_off'`.execute(db);
  await sql`create index conversations_assignee on conversations (assignee_user_id) where assignee_user_id is not null`.execute(db);
  // Tool calls waiting for a person's approval are few: the inbox finds their conversations through this.
  await sql`create index run_tool_calls_awaiting_approval on run_tool_calls (run_id) where status = 'awaiting_approval'`.execute(db);

  await db.schema
    .createTable('conversation_reads')
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('reader', 'text', (c) => c.notNull())
    .addColumn('read_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('conversation_reads_pk', ['conversation_id', 'reader'])
    .execute();

  await db.schema
    .createTable('conversation_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('author_user_id', 'text', (c) => c.references('console_users.id').onDelete('set null'))
    .addColumn('author_key_id', 'text')
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('conversation_notes_conversation').on('conversation_notes').columns(['conversation_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('saved_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('saved_replies_account').on('saved_replies').columns(['account_id', 'livemode', 'created_at', 'id']).execute();

  await sql`alter table conversation_messages add column search tsvector generated always as (to_tsvector('simple', content)) stored`.execute(db);
  await sql`create index conversation_messages_search on conversation_messages using gin (search)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists conversation_messages_search`.execute(db);
  await sql`drop index if exists run_tool_calls_awaiting_approval`.execute(db);
  await sql`alter table conversation_messages drop column if exists search`.execute(db);
  await db.schema.dropTable('saved_replies').ifExists().execute();
  await db.schema.dropTable('conversation_notes').ifExists().execute();
  await db.schema.dropTable('conversation_reads').ifExists().execute();
  await sql`drop trigger if exists conversation_messages_summary on conversation_messages`.execute(db);
  await sql`drop function if exists conversation_message_summary()`.execute(db);
  await sql`alter table conversations drop column last_message_at, drop column last_message_preview, drop column last_message_role,
    drop column waiting_since, drop column unread_at, drop column assignee_user_id, drop column team_alerted_at`.execute(db);
}
