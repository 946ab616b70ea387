import { type Kysely, sql } from 'kysely';

/**
 * The webhook outbox: a delivery row committed with its event (and the state change behind it) waits
 * for the dispatcher until `dispatched_at` is set (first attempt delivered, or the retry workflow
 * started). `dispatch_lease_until` is the claim of a dispatcher working on it; an expired claim (its
 * worker died) is taken again by the sweep. Deliveries made before the outbox had their workflows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('dispatched_at', 'timestamptz')
    .addColumn('dispatch_lease_until', 'timestamptz')
    .execute();
  await sql`update webhook_deliveries set dispatched_at = created_at`.execute(db);
  await db.schema
    .createIndex('webhook_deliveries_outbox')
    .on('webhook_deliveries')
    .columns(['account_id', 'created_at', 'id'])
    .where(sql.ref('dispatched_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_outbox').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('dispatch_lease_until').dropColumn('dispatched_at').execute();
}
