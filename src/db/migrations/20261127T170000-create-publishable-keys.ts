import { type Kysely, sql } from 'kysely';

/**
 * The website widget's credentials: publishable keys (one agent each, with their allowed origins), the
 * per-agent identity secrets that sign visitors' JWTs, the agent's identity requirement, and the visitor a
 * widget conversation belongs to.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('publishable_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allowed_origins', sql`text[]`, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('publishable_keys_account_agent').on('publishable_keys').columns(['account_id', 'livemode', 'agent_id', 'created_at']).execute();
  // Preflight requests carry no key: an origin is answered when some active key allows it.
  await sql`create index publishable_keys_active_origins on publishable_keys using gin (allowed_origins) where revoked_at is null`.execute(db);

  await db.schema
    .createTable('agent_identity_secrets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('agent_identity_secrets_agent').on('agent_identity_secrets').columns(['agent_id', 'created_at']).execute();

  await db.schema.alterTable('agents').addColumn('visitor_identity', 'text', (c) => c.notNull().defaultTo('optional').check(sql`visitor_identity in ('optional', 'required')`)).execute();
  await db.schema.alterTable('conversations').addColumn('visitor_id', 'text').execute();
  await sql`create index conversations_visitor on conversations (agent_id, visitor_id, created_at desc) where visitor_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists conversations_visitor`.execute(db);
  await db.schema.alterTable('conversations').dropColumn('visitor_id').execute();
  await db.schema.alterTable('agents').dropColumn('visitor_identity').execute();
  await db.schema.dropTable('agent_identity_secrets').ifExists().execute();
  await db.schema.dropTable('publishable_keys').ifExists().execute();
}
