import { type Kysely, sql } from 'kysely';

/**
 * Handoff queues of an account (one per name and mode: the name an agent's `handoff.default_queue` gives)
 * with their business hours; the conversation's `unread` marker (a customer wrote while a person holds
 * it, or it was just handed off; cleared when a teammate opens it in the console); conversations without
 * an agent (a phone number with none attached: the team answers).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('queues')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('weekly_hours', 'jsonb')
    .addColumn('holidays', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index queues_account_mode_name on queues (account_id, livemode, name)`.execute(db);
  await db.schema.alterTable('conversations').addColumn('unread', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  // A conversation of a number with no agent attached belongs to the team alone (agent_id null).
  await db.schema.alterTable('conversations').alterColumn('agent_id', (c) => c.dropNotNull()).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from conversations where agent_id is null`.execute(db);
  await db.schema.alterTable('conversations').alterColumn('agent_id', (c) => c.setNotNull()).execute();
  await db.schema.alterTable('conversations').dropColumn('unread').execute();
  await db.schema.dropTable('queues').execute();
}
