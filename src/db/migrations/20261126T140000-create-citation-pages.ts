import { type Kysely, sql } from 'kysely';

/**
 * Citation pages (`/c/{token}`): the passage a run cited from a source with no url of its own (an uploaded
 * document, a record), served to whoever holds the link. Only the token's SHA-256 is stored; a page goes
 * with its source (deleting the source revokes every link to it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('citation_pages')
    .addColumn('token_hash', 'bytea', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id').onDelete('cascade'))
    .addColumn('run_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('section', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('citation_pages_source').on('citation_pages').column('source_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('citation_pages').execute();
}
