import { type Kysely, sql } from 'kysely';

/**
 * Message batches (POST /v1/message_batches): one row per accepted batch, and each of its messages names
 * it (`messages.message_batch_id`). The batch's counts are read from its messages (index on batch and
 * status); `completed_at` is set, with message_batch.completed, once every message is final.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('message_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('from', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('send_at', 'timestamptz')
    .addColumn('status_callback', 'text')
    .addColumn('recipients', 'integer', (c) => c.notNull())
    .addColumn('rejected', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('canceled_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('message_batches_account_created').on('message_batches').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('message_batches_open')
    .on('message_batches')
    .column('created_at')
    .where(sql.ref('completed_at'), 'is', null)
    .execute();
  await db.schema.alterTable('messages').addColumn('message_batch_id', 'text', (c) => c.references('message_batches.id').onDelete('cascade')).execute();
  await db.schema
    .createIndex('messages_batch_status')
    .on('messages')
    .columns(['message_batch_id', 'status'])
    .where(sql.ref('message_batch_id'), 'is not', null)
    .execute();
  // The handset a receipt is about, when the carrier says: a receipt that matches no recorded part (its
  // submit's answer was lost with a worker) is found by it when the message is tried again.
  await db.schema.alterTable('sms_receipts').addColumn('handset', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sms_receipts').dropColumn('handset').execute();
  await db.schema.alterTable('messages').dropColumn('message_batch_id').execute();
  await db.schema.dropTable('message_batches').execute();
}
