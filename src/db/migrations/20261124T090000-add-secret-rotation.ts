import type { Kysely } from 'kysely';

/** Account signing secret rotation: the replaced secret keeps signing (beside the new one) until it expires. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('previous_signing_secret', 'text')
    .addColumn('previous_signing_secret_expires_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('previous_signing_secret').dropColumn('previous_signing_secret_expires_at').execute();
}
