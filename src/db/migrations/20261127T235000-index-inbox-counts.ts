import { type Kysely, sql } from 'kysely';

/**
 * The inbox's counts per tab without reading every conversation of the account (docs/decisions/inbox-counts.md):
 * - conversations per test flag and status from an index of those columns (an index-only scan once vacuum
 *   has visited the table, as autovacuum does after inserts);
 * - the unread count from the open conversations that ever became unread (a partial index), each checked
 *   against the teammate's read.
 * "Mine" uses conversations_assignee and the queue conversations_queue (both exist).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index conversations_tab_counts on conversations (account_id, livemode, test, status)`.execute(db);
  await sql`create index conversations_open_unread on conversations (account_id, livemode, test) where unread_at is not null and status <> 'closed'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists conversations_open_unread`.execute(db);
  await sql`drop index if exists conversations_tab_counts`.execute(db);
}
