import { type Kysely, sql } from 'kysely';

/**
 * The conversation stream's events (GET /v1/conversations/{id}/events), numbered per conversation in the
 * order they commit, so `Last-Event-ID` resumes exactly through any API process and any restart:
 * - a trigger on conversation_messages writes `conversation.message` for every turn (customer, agent,
 *   human), whichever code inserted it, in the message's own transaction;
 * - a trigger on conversations writes a status change (`conversation.handoff`, `conversation.closed`,
 *   `conversation.handoff.closed`);
 * - runs write `reply.delta` and `reply.retracted` as the planner streams (ConversationEventRepo);
 * - a trigger on conversation_events NOTIFYs `converse_conversation_events` with `<conversation id>:<seq>`
 *   on commit (a reply.delta adds `:<data>`, so a stream that is caught up sends it without reading it
 *   back), which wakes every API process's one listener (ConversationEventsNotifier).
 * `conversation_event_seq` locks the conversation row before it reads the last number, so two writers of
 * one conversation take turns and a reader never sees seq n+1 before n has committed.
 * Existing transcripts are numbered once here, oldest first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conversation_events')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('conversation_events_pk', ['conversation_id', 'seq'])
    .execute();
  await sql`create function conversation_event_seq(cid text) returns integer language plpgsql as $$
    declare next_seq integer;
    begin
      perform 1 from conversations where id = cid for update;
      select coalesce(max(seq), 0) + 1 into next_seq from conversation_events where conversation_id = cid;
      return next_seq;
    end $$`.execute(db);
  await sql`create function conversation_message_event() returns trigger language plpgsql as $$
    begin
      insert into conversation_events (conversation_id, seq, type, message_id)
      values (new.conversation_id, conversation_event_seq(new.conversation_id), 'conversation.message', new.id);
      return null;
    end $$`.execute(db);
  await sql`create trigger conversation_messages_stream after insert on conversation_messages
    for each row execute function conversation_message_event()`.execute(db);
  await sql`create function conversation_status_event() returns trigger language plpgsql as $$
    begin
      if new.status is distinct from old.status then
        insert into conversation_events (conversation_id, seq, type, data)
        values (new.id, conversation_event_seq(new.id),
          case new.status when 'handed_off' then 'conversation.handoff' when 'closed' then 'conversation.closed' else 'conversation.handoff.closed' end,
          jsonb_build_object('status', new.status, 'handoff', new.handoff));
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger conversations_status_stream after update of status on conversations
    for each row execute function conversation_status_event()`.execute(db);
  await sql`create function conversation_event_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('converse_conversation_events', new.conversation_id || ':' || new.seq ||
        case when new.type = 'reply.delta' and octet_length(new.data::text) < 7000 then ':' || new.data::text else '' end);
      return null;
    end $$`.execute(db);
  await sql`create trigger conversation_events_notify after insert on conversation_events
    for each row execute function conversation_event_notify()`.execute(db);
  await sql`insert into conversation_events (conversation_id, seq, type, message_id, created_at)
    select conversation_id, row_number() over (partition by conversation_id order by seq), 'conversation.message', id, created_at
    from conversation_messages`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists conversation_messages_stream on conversation_messages`.execute(db);
  await sql`drop trigger if exists conversations_status_stream on conversations`.execute(db);
  await db.schema.dropTable('conversation_events').ifExists().execute();
  await sql`drop function if exists conversation_message_event()`.execute(db);
  await sql`drop function if exists conversation_status_event()`.execute(db);
  await sql`drop function if exists conversation_event_notify()`.execute(db);
  await sql`drop function if exists conversation_event_seq(text)`.execute(db);
}
