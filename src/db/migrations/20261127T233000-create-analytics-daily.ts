import { type Kysely, sql } from 'kysely';

/**
 * Daily analytics rollups (docs/decisions/analytics-daily-rollups.md):
 * - analytics_daily: the hourly rows of one local day (in the account's time zone) summed, per account, mode,
 *   agent, version and channel; rewritten whole from analytics_hourly whenever one of its hours is rolled, so it
 *   is as idempotent as the hours are. Readers of day, week and month periods read these (a quarter: ~180 rows,
 *   not ~4,300);
 * - analytics_daily_state: the zone an account's daily rows are cut in. When it differs from the account's
 *   time zone (a changed zone, or rows from before this table), readers sum the hourly rows and the next
 *   rollup rebuilds the account's days.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table analytics_daily (
    account_id text not null,
    livemode boolean not null,
    agent_id text not null,
    agent_version integer not null,
    channel text not null,
    day date not null,
    counts jsonb not null,
    handoff_reasons jsonb not null,
    tool_calls jsonb not null,
    histograms jsonb not null,
    sms_cost numeric not null default 0,
    primary key (account_id, livemode, agent_id, day, channel, agent_version)
  )`.execute(db);
  await sql`create table analytics_daily_state (
    account_id text primary key,
    time_zone text not null
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists analytics_daily_state, analytics_daily`.execute(db);
}
