import { type Kysely, sql } from 'kysely';

/**
 * The SMS outbox: a message accepted by the API is committed with its row here, and the dispatcher in the
 * worker starts its workflow (a batch of immediate messages, or a delivery workflow of its own) from it.
 * `batch_id` and `lease_until` are set when a dispatcher claims the row: a row whose lease ran out (its
 * dispatcher died) is started again under the same workflow id, so a message is never in two workflows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sms_outbox')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
    .addColumn('own_workflow', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('batch_id', 'text')
    .addColumn('lease_until', 'timestamptz')
    .execute();
  await db.schema.createIndex('sms_outbox_unclaimed').on('sms_outbox').columns(['created_at', 'message_id']).where(sql.ref('batch_id'), 'is', null).execute();
  await db.schema.createIndex('sms_outbox_claimed').on('sms_outbox').columns(['lease_until']).where(sql.ref('batch_id'), 'is not', null).execute();
  // Messages accepted before the outbox (still `queued`, waiting for the workflow start the API made)
  // are not added: their workflows were started with them.
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sms_outbox').execute();
}
