import { type Kysely, sql } from 'kysely';

/** Knowledge bases, uploaded files, sources, passages and the lexical index (see docs/decisions/knowledge-lexical-retrieval.md). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('knowledge_bases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('knowledge_bases_account_created').on('knowledge_bases').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('knowledge_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('knowledge_files_account_created').on('knowledge_files').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('knowledge_sources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('knowledge_base_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('url', 'text')
    .addColumn('file_id', 'text', (c) => c.references('knowledge_files.id'))
    .addColumn('records', 'jsonb')
    .addColumn('refresh', 'text', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('timeout_ms', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('sync_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('active_version', 'integer')
    .addColumn('passage_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_length', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_synced_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('knowledge_sources_base_created')
    .on('knowledge_sources')
    .columns(['knowledge_base_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('knowledge_passages')
    .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('knowledge_base_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('heading', 'text')
    .addColumn('url', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('length', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('knowledge_passages_pk', ['source_id', 'version', 'ordinal'])
    .execute();

  await db.schema
    .createTable('knowledge_terms')
    .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('term', 'text', (c) => c.notNull())
    .addColumn('df', 'integer', (c) => c.notNull())
    .addColumn('ords', sql`integer[]`, (c) => c.notNull())
    .addColumn('imps', sql`real[]`, (c) => c.notNull())
    .addPrimaryKeyConstraint('knowledge_terms_pk', ['source_id', 'version', 'term'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['knowledge_terms', 'knowledge_passages', 'knowledge_sources', 'knowledge_files', 'knowledge_bases']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
