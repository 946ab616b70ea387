import { type Kysely, sql } from 'kysely';

/**
 * Semantic retrieval (see docs/decisions/knowledge-embeddings.md): each passage gets the SHA-256 of the
 * text it is embedded from, and vectors live beside the passages, keyed by (source, model, content hash)
 * so a re-sync reuses the vectors of unchanged passages. Plain PostgreSQL types only (works on PostgreSQL
 * 15 without extensions and on PGlite): the float32 vector as bytea, kept out of line (TOAST) so that the
 * scan over the sign bits (`bit varying`, compared with `bit_count(a # b)`) reads a narrow heap.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('knowledge_passages').addColumn('content_hash', 'bytea').execute();
  // A record's own metadata (filters overlay it on the source's current metadata).
  await db.schema
    .alterTable('knowledge_passages')
    .addColumn('own_metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  // Existing passages get the hash passageEmbeddingText + contentHash would give them (sha256 of the
  // non-blank parts joined by newlines), so their first backfill needs no re-sync.
  await sql`
    update knowledge_passages set content_hash = sha256(convert_to(concat_ws(E'\n',
      case when btrim(title) <> '' then title end,
      case when btrim(coalesce(heading, '')) <> '' then heading end,
      case when btrim(content) <> '' then content end), 'UTF8'))
  `.execute(db);
  await db.schema.createIndex('knowledge_passages_content_hash').on('knowledge_passages').columns(['source_id', 'content_hash']).execute();

  await db.schema
    .alterTable('knowledge_sources')
    .addColumn('embedded_passages', 'integer', (c) => c.notNull().defaultTo(0))
    // The text search configurations the live version was indexed with (one per passage locale).
    .addColumn('analyzers', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{english}'::text[]`))
    .execute();

  await db.schema
    .createTable('knowledge_embeddings')
    .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id').onDelete('cascade'))
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'bytea', (c) => c.notNull())
    .addColumn('dims', 'integer', (c) => c.notNull())
    .addColumn('bits', sql`bit varying`, (c) => c.notNull())
    .addColumn('vec', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('knowledge_embeddings_pk', ['source_id', 'model', 'content_hash'])
    .execute();
  await sql`alter table knowledge_embeddings set (toast_tuple_target = 128)`.execute(db);
  await sql`alter table knowledge_embeddings alter column vec set storage external`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('knowledge_embeddings').ifExists().execute();
  await db.schema.alterTable('knowledge_sources').dropColumn('embedded_passages').dropColumn('analyzers').execute();
  await db.schema.dropIndex('knowledge_passages_content_hash').ifExists().execute();
  await db.schema.alterTable('knowledge_passages').dropColumn('content_hash').execute();
  await db.schema.alterTable('knowledge_passages').dropColumn('own_metadata').execute();
}
