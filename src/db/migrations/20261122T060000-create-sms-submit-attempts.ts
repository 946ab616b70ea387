import { type Kysely, sql } from 'kysely';

/**
 * Every submit of a message to a carrier, recorded before the carrier gets it: which carrier, when, how
 * many parts, which parts it accepted, and how it ended. A retry or failover decides from these rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sms_submit_attempts')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('parts', 'integer', (c) => c.notNull())
    .addColumn('accepted_ids', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('concat_ref', 'integer')
    .addColumn('error_code', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addPrimaryKeyConstraint('sms_submit_attempts_pk', ['message_id', 'attempt'])
    .execute();
  // Receipts of submits whose answer never came are matched by carrier and handset.
  await db.schema
    .createIndex('sms_submit_attempts_uncertain')
    .on('sms_submit_attempts')
    .columns(['carrier', 'recipient', 'started_at'])
    .where(sql.ref('state'), 'in', ['submitting', 'uncertain'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sms_submit_attempts').execute();
}
