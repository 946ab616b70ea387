import { type Kysely, sql } from 'kysely';

/**
 * Console sessions follow what opened them: a session signed in with a secret key names the key
 * (`key_id`) and ends when the key is revoked; a console user's session ends when the user is disabled
 * (`console_users.disabled_at`). One-time sign-in links (printed by `npm start` for the development
 * account) are kept as a hash with the key they sign in with. Sessions opened before by a key cannot be
 * bound to it, so they are ended: their browsers sign in again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from console_sessions where user_id is null`.execute(db);
  await db.schema
    .alterTable('console_sessions')
    .addColumn('key_id', 'text', (c) => c.references('api_keys.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('console_sessions_key').on('console_sessions').column('key_id').execute();
  await db.schema.alterTable('console_users').addColumn('disabled_at', 'timestamptz').execute();
  await db.schema
    .createTable('console_sign_in_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_sign_in_links').ifExists().execute();
  await db.schema.alterTable('console_users').dropColumn('disabled_at').execute();
  await db.schema.dropIndex('console_sessions_key').ifExists().execute();
  await db.schema.alterTable('console_sessions').dropColumn('key_id').execute();
}
