import type { Kysely } from 'kysely';

/** Webhook endpoint secret rotation: the replaced secret keeps signing (beside the new one) until it expires. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').addColumn('previous_secret_expires_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').dropColumn('previous_secret_expires_at').execute();
}
