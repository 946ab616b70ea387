import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * Signing secrets per mode (Stripe keeps test and live apart, secrets included): the account's existing
 * `signing_secret` columns become the live mode's, and each account gets a fresh test secret beside them
 * (`test_signing_secret`, rotated on its own). Test keys see and rotate only the test secret; test runs,
 * test api sources and test status callbacks sign with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('test_signing_secret', 'text')
    .addColumn('test_previous_signing_secret', 'text')
    .addColumn('test_previous_signing_secret_expires_at', 'timestamptz')
    .execute();
  const rows = await sql<{ id: string }>`select id from accounts where test_signing_secret is null`.execute(db);
  for (const { id } of rows.rows) {
    // The same shape as newSigningSecret() (kept here so the migration never changes with the code).
    await sql`update accounts set test_signing_secret = ${`whsec_${randomBytes(24).toString('base64url')}`} where id = ${id}`.execute(db);
  }
  await db.schema.alterTable('accounts').alterColumn('test_signing_secret', (c) => c.setNotNull()).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .dropColumn('test_signing_secret')
    .dropColumn('test_previous_signing_secret')
    .dropColumn('test_previous_signing_secret_expires_at')
    .execute();
}
