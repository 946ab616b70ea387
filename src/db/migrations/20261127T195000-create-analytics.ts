import { type Kysely, sql } from 'kysely';

/**
 * Analytics (docs/decisions/analytics-formulas-and-rollups.md):
 * - the account's analytics settings: the time zone periods are cut in, and the window of an assumed resolution;
 * - conversation_feedback: the customer's thumbs-up/down (POST /v1/conversations/{id}/feedback);
 * - analytics_conversations: one row of facts per conversation (its resolution moment, reopen, handoff, first
 *   responses), recomputed from the transcript whenever its start hour is rolled up;
 * - analytics_hourly: the hourly aggregates the API and the console read (never raw runs);
 * - analytics_rollup_state: the watermark of the last rollup (what changed since is rolled again);
 * - indexes that let a rollup find an hour's rows and what changed since the watermark.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts add column time_zone text not null default 'UTC',
    add column resolution_window_hours integer not null default 24`.execute(db);
  await sql`create table conversation_feedback (
    id text primary key,
    account_id text not null,
    livemode boolean not null,
    conversation_id text not null references conversations(id) on delete cascade,
    message_id text,
    rating text not null check (rating in ('up', 'down')),
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index conversation_feedback_conversation on conversation_feedback (conversation_id, created_at)`.execute(db);
  await sql`create index conversation_feedback_created on conversation_feedback (created_at)`.execute(db);
  await sql`create table analytics_conversations (
    conversation_id text primary key,
    account_id text not null,
    livemode boolean not null,
    agent_id text not null,
    agent_version integer not null,
    channel text not null,
    started_at timestamptz not null,
    resolution text,
    resolved_at timestamptz,
    durable_at timestamptz,
    reopened_at timestamptz,
    computed_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index analytics_conversations_resolved on analytics_conversations (resolved_at) where resolved_at is not null`.execute(db);
  await sql`create index analytics_conversations_durable on analytics_conversations (durable_at) where durable_at is not null`.execute(db);
  await sql`create table analytics_hourly (
    account_id text not null,
    livemode boolean not null,
    agent_id text not null,
    agent_version integer not null,
    channel text not null,
    hour timestamptz not null,
    counts jsonb not null,
    handoff_reasons jsonb not null,
    tool_calls jsonb not null,
    histograms jsonb not null,
    sms_cost numeric not null default 0,
    primary key (account_id, livemode, agent_id, hour, channel, agent_version)
  )`.execute(db);
  await sql`create index analytics_hourly_hour on analytics_hourly (hour)`.execute(db);
  await sql`create table analytics_rollup_state (
    id text primary key,
    watermark timestamptz not null
  )`.execute(db);
  await sql`create index conversations_created on conversations (created_at)`.execute(db);
  await sql`create index runs_created on runs (created_at)`.execute(db);
  await sql`create index runs_updated on runs (updated_at)`.execute(db);
  await sql`create index conversation_messages_created on conversation_messages (created_at)`.execute(db);
  await sql`create index conversation_events_created on conversation_events (created_at)`.execute(db);
  await sql`create index messages_conversation_updated on messages (updated_at) where origin = 'conversation'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const i of ['conversations_created', 'runs_created', 'runs_updated', 'conversation_messages_created', 'conversation_events_created', 'messages_conversation_updated']) {
    await sql`drop index if exists ${sql.raw(i)}`.execute(db);
  }
  await sql`drop table if exists analytics_rollup_state, analytics_hourly, analytics_conversations, conversation_feedback`.execute(db);
  await sql`alter table accounts drop column if exists time_zone, drop column if exists resolution_window_hours`.execute(db);
}
