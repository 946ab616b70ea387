import { type Kysely, sql } from 'kysely';

/**
 * Teammates and roles (docs/decisions/console-teammates-and-roles.md, console-approvals.md):
 * - console users get a role (owner, admin, agent, viewer; those created before are owners) and a display name;
 * - invites: a signed, single-use, expiring link (only its SHA-256 is kept) for an email and a role;
 * - API keys get a role (keys made before are owners) and the teammate who made one in the console;
 * - a human's transcript message names its author (a teammate, or the API key);
 * - a tool call records who approved or rejected it, and when; conversations whose run waits for an
 *   approval are found by a partial index (the handoff queue lists them).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('console_users')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('owner').check(sql`role in ('owner', 'admin', 'agent', 'viewer')`))
    .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('console_users_account').on('console_users').column('account_id').execute();
  await db.schema
    .createTable('console_invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'agent', 'viewer')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('console_invites_account').on('console_invites').column('account_id').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('owner').check(sql`role in ('owner', 'admin', 'agent', 'viewer')`))
    .addColumn('created_by_user_id', 'text')
    .execute();
  await db.schema.alterTable('conversation_messages').addColumn('author', 'jsonb').execute();
  await db.schema.alterTable('run_tool_calls').addColumn('decided_by', 'jsonb').addColumn('decided_at', 'timestamptz').execute();
  // The handoff queue lists conversations whose run waits for an approval.
  await sql`create index runs_awaiting_approval on runs (conversation_id) where status = 'requires_action'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists runs_awaiting_approval`.execute(db);
  await db.schema.alterTable('run_tool_calls').dropColumn('decided_at').dropColumn('decided_by').execute();
  await db.schema.alterTable('conversation_messages').dropColumn('author').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by_user_id').dropColumn('role').execute();
  await db.schema.dropTable('console_invites').ifExists().execute();
  await db.schema.dropIndex('console_users_account').ifExists().execute();
  await db.schema.alterTable('console_users').dropColumn('display_name').dropColumn('role').execute();
}
