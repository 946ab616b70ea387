import { type Kysely, sql } from 'kysely';

/**
 * Voice: a number's call flow (what an inbound call hears and who answers it) and the calls themselves,
 * one row per provider call (its CallSid is the id), linked to the conversation its turns are written to.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').addColumn('voice_call_flow', 'jsonb').execute();
  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone_number_id', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('transfer_to', 'text')
    .addColumn('transferred_at', 'timestamptz')
    .addColumn('duration_seconds', 'integer')
    .addColumn('recording_sid', 'text')
    .addColumn('recording_url', 'text')
    .addColumn('recording_duration_seconds', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('answered_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('calls_account_created').on('calls').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('calls_conversation').on('calls').column('conversation_id').where(sql.ref('conversation_id'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('calls').ifExists().execute();
  await db.schema.alterTable('phone_numbers').dropColumn('voice_call_flow').execute();
}
