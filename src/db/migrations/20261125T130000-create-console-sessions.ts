import { type Kysely, sql } from 'kysely';

/**
 * The console: its users (email and a scrypt password hash, one account each), its sign-in sessions (a
 * hash of the cookie's token, never the token), and test conversations (the console's test chat runs an
 * agent's draft in a conversation marked `test`, kept out of the inbox and the API's lists).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index console_users_email on console_users (lower(email))`.execute(db);
  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_expires').on('console_sessions').column('expires_at').execute();
  await db.schema.alterTable('conversations').addColumn('test', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('conversations').dropColumn('test').execute();
  await db.schema.dropTable('console_sessions').ifExists().execute();
  await db.schema.dropTable('console_users').ifExists().execute();
}
