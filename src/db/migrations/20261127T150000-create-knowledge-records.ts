import { type Kysely, sql } from 'kysely';

/**
 * Records of a record source become rows of their own (`rec_` ids) so a person can read, add, edit and
 * delete one; each passage names the record it was cut from, so one record can be re-indexed alone.
 * Existing records get ids here, in their pushed order (created_at steps by a microsecond). Passages
 * indexed before this migration have no record id: the first record edit of such a source re-syncs it
 * whole (a new version), which writes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('knowledge_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('knowledge_records_source_created').on('knowledge_records').columns(['source_id', 'created_at', 'id']).execute();
  await sql`
    insert into knowledge_records (id, source_id, title, content, url, metadata, created_at, updated_at)
    select 'rec_' || substr(replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''), 1, 24),
           s.id, r.value ->> 'title', r.value ->> 'content', r.value ->> 'url', coalesce(r.value -> 'metadata', '{}'::jsonb),
           s.created_at + (r.ord * interval '1 microsecond'), s.updated_at
    from knowledge_sources s, jsonb_array_elements(s.records) with ordinality as r(value, ord)
    where s.type = 'record' and jsonb_typeof(s.records) = 'array'
  `.execute(db);
  await db.schema.alterTable('knowledge_sources').addColumn('record_count', 'integer').execute();
  await sql`update knowledge_sources set record_count = jsonb_array_length(records) where type = 'record' and jsonb_typeof(records) = 'array'`.execute(db);
  await db.schema.alterTable('knowledge_sources').dropColumn('records').execute();
  await db.schema.alterTable('knowledge_passages').addColumn('record_id', 'text').execute();
  await db.schema.createIndex('knowledge_passages_record').on('knowledge_passages').columns(['source_id', 'version', 'record_id']).where(sql.ref('record_id'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('knowledge_sources').addColumn('records', 'jsonb').execute();
  await sql`
    update knowledge_sources s set records = (
      select jsonb_agg(jsonb_strip_nulls(jsonb_build_object('title', r.title, 'content', r.content, 'url', r.url, 'metadata', r.metadata)) order by r.created_at, r.id)
      from knowledge_records r where r.source_id = s.id
    ) where s.type = 'record'
  `.execute(db);
  await db.schema.alterTable('knowledge_sources').dropColumn('record_count').execute();
  await db.schema.dropIndex('knowledge_passages_record').ifExists().execute();
  await db.schema.alterTable('knowledge_passages').dropColumn('record_id').execute();
  await db.schema.dropTable('knowledge_records').execute();
}
