import { type Kysely, sql } from 'kysely';

/**
 * The teammates of a handoff queue (docs/decisions/inbox-queue-teammates.md): the team emails about a
 * conversation handed off to the queue go to them. A removed teammate or queue takes its rows with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('queue_members')
    .addColumn('queue_id', 'text', (c) => c.notNull().references('queues.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('console_users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('queue_members_pk', ['queue_id', 'user_id'])
    .execute();
  await sql`create index queue_members_user on queue_members (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('queue_members').ifExists().execute();
}
