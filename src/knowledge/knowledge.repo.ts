import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { KnowledgeFileFormat, KnowledgeRecordInput, KnowledgeRefresh, KnowledgeSourceType } from '../db/tables/knowledge';
import { paginate, type PageParams } from '../db/pagination';
import { contentHash, passageEmbeddingText } from './index/embedding-text';
import { analyzerSql, DEFAULT_ANALYZER } from './index/analyzers';
import { passageImpactsSql } from './index/term-postings';
import { inScope, type Scope } from '../db/scope';
import { KnowledgeRecordRepo } from './knowledge-record.repo';

type Db = Kysely<DB> | Transaction<DB>;

/** Text search configuration for text without a locale (api-source results); passages use their locale's (index/analyzers.ts). */
export const TEXT_SEARCH_CONFIG = DEFAULT_ANALYZER;

export interface PassageInsert {
  title: string;
  heading: string | null;
  url: string | null;
  content: string;
  metadata: Record<string, string>;
  /** The document's own metadata (a record's), without the source's. */
  ownMetadata?: Record<string, string>;
  /** The record the passage was cut from (record sources). */
  recordId?: string;
}

export class KnowledgeRepo {
  // ── bases ────────────────────────────────────────────────────────────────
  async insertBase(db: Db, row: { id: string; account_id: string; livemode: boolean; name: string; description: string | null; metadata: Record<string, string> }) {
    return db
      .insertInto('knowledge_bases')
      .values({ ...row, metadata: JSON.stringify(row.metadata) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async getBaseById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('knowledge_bases').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async listBases(db: Kysely<DB>, scope: Scope, page: PageParams) {
    return paginate(db, 'knowledge_bases', db.selectFrom('knowledge_bases').selectAll().where(inScope(scope)), page);
  }

  async deleteBase(db: Db, scope: Scope, id: string) {
    await db.deleteFrom('knowledge_bases').where(inScope(scope)).where('id', '=', id).execute();
  }

  async countSourcesByBase(db: Db, baseIds: string[]) {
    if (baseIds.length === 0) return new Map<string, number>();
    const rows = await db
      .selectFrom('knowledge_sources')
      .select(['knowledge_base_id', sql<number>`count(*)::int`.as('n')])
      .where('knowledge_base_id', 'in', baseIds)
      .groupBy('knowledge_base_id')
      .execute();
    return new Map(rows.map((r) => [r.knowledge_base_id, r.n]));
  }

  // ── files ────────────────────────────────────────────────────────────────
  async insertFile(db: Db, row: { id: string; account_id: string; livemode: boolean; filename: string; content_type: string; format: KnowledgeFileFormat; bytes: number; data: Buffer }) {
    await db.insertInto('knowledge_files').values(row).execute();
    return this.getFileById(db, { accountId: row.account_id, livemode: row.livemode }, row.id).then((f) => f!);
  }

  async getFileById(db: Db, scope: Scope, id: string) {
    return db
      .selectFrom('knowledge_files')
      .select(['id', 'account_id', 'livemode', 'filename', 'content_type', 'format', 'bytes', 'created_at'])
      .where(inScope(scope))
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async getFileData(db: Db, id: string) {
    return db.selectFrom('knowledge_files').select(['id', 'filename', 'format', 'data']).where('id', '=', id).executeTakeFirst();
  }

  async listFiles(db: Kysely<DB>, scope: Scope, page: PageParams) {
    const q = db
      .selectFrom('knowledge_files')
      .select(['id', 'account_id', 'livemode', 'filename', 'content_type', 'format', 'bytes', 'created_at'])
      .where(inScope(scope));
    return paginate(db, 'knowledge_files', q, page);
  }

  // ── sources ──────────────────────────────────────────────────────────────
  async insertSource(
    db: Db,
    row: {
      id: string; account_id: string; knowledge_base_id: string; type: KnowledgeSourceType; livemode: boolean;
      url: string | null; file_id: string | null; records: KnowledgeRecordInput[] | null; refresh: KnowledgeRefresh;
      metadata: Record<string, string>; timeout_ms: number | null;
    },
  ) {
    const { records, ...columns } = row;
    const source = await db
      .insertInto('knowledge_sources')
      .values({
        ...columns,
        record_count: records ? records.length : null,
        metadata: JSON.stringify(row.metadata),
        status: 'indexing',
        sync_seq: 1,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (records) await new KnowledgeRecordRepo().insertRecords(db, row.id, records);
    return source;
  }

  async getSourceById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('knowledge_sources').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  /** A source's summary (what a sync needs). */
  async getSourceSummary(db: Db, id: string) {
    return db
      .selectFrom('knowledge_sources')
      .select(['id', 'account_id', 'knowledge_base_id', 'type', 'livemode', 'url', 'file_id', 'refresh', 'metadata', 'timeout_ms', 'status', 'sync_seq', 'active_version'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Every record of a record source, in their order, with their ids (what a whole sync indexes). */
  async getSourceRecords(db: Db, id: string) {
    return new KnowledgeRecordRepo().listAllRecords(db, id);
  }

  async listSources(db: Kysely<DB>, scope: Scope, baseId: string, page: PageParams) {
    const q = db.selectFrom('knowledge_sources').selectAll().where(inScope(scope)).where('knowledge_base_id', '=', baseId);
    return paginate(db, 'knowledge_sources', q, page);
  }

  async listSourceIdsOfBase(db: Db, baseId: string) {
    return (await db.selectFrom('knowledge_sources').select('id').where('knowledge_base_id', '=', baseId).execute()).map((r) => r.id);
  }

  async updateSource(
    db: Db,
    id: string,
    patch: { refresh?: KnowledgeRefresh; metadata?: Record<string, string>; timeout_ms?: number | null },
  ) {
    const { metadata, ...rest } = patch;
    return db
      .updateTable('knowledge_sources')
      .set({
        ...rest,
        ...(metadata ? { metadata: JSON.stringify(metadata) } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteSource(db: Db, id: string) {
    await db.deleteFrom('knowledge_sources').where('id', '=', id).execute();
  }

  /** Hands out the next version number and shows the source as indexing. */
  async allocateSyncVersion(db: Db, id: string): Promise<number | undefined> {
    const row = await db
      .updateTable('knowledge_sources')
      .set({ sync_seq: sql`sync_seq + 1`, status: 'indexing', updated_at: new Date() })
      .where('id', '=', id)
      .returning('sync_seq')
      .executeTakeFirst();
    return row?.sync_seq;
  }

  async markIndexing(db: Db, id: string, version: number) {
    const row = await db
      .updateTable('knowledge_sources')
      .set({ status: 'indexing', updated_at: new Date() })
      .where('id', '=', id)
      .where('sync_seq', '=', version)
      .returning('id')
      .executeTakeFirst();
    return Boolean(row);
  }

  // ── index ────────────────────────────────────────────────────────────────
  async clearVersion(db: Db, sourceId: string, version: number) {
    await db.deleteFrom('knowledge_terms').where('source_id', '=', sourceId).where('version', '=', version).execute();
    await db.deleteFrom('knowledge_passages').where('source_id', '=', sourceId).where('version', '=', version).execute();
  }

  async insertPassages(db: Db, input: { sourceId: string; version: number; baseId: string; firstOrdinal: number; passages: PassageInsert[] }) {
    if (input.passages.length === 0) return;
    await db
      .insertInto('knowledge_passages')
      .values(
        input.passages.map((p, i) => ({
          source_id: input.sourceId,
          version: input.version,
          ordinal: input.firstOrdinal + i,
          knowledge_base_id: input.baseId,
          title: p.title,
          heading: p.heading,
          url: p.url,
          content: p.content,
          metadata: JSON.stringify(p.metadata),
          length: 0,
          content_hash: contentHash(passageEmbeddingText(p)),
          own_metadata: JSON.stringify(p.ownMetadata ?? {}),
          record_id: p.recordId ?? null,
        })),
      )
      .execute();
  }

  /**
   * Tokenizes every passage of a version with the Postgres text-search parser (stemming, stop words), sets
   * each passage's length, and writes the version's posting lists with each posting's BM25 impact
   * tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)), using the version's own average length. Returns the
   * passage count and total length.
   */
  async buildTermIndex(
    db: Db,
    sourceId: string,
    version: number,
    bm25: { k1: number; b: number },
  ): Promise<{ passages: number; totalLength: number; analyzers: string[] }> {
    const cfg = analyzerSql(sql`p.metadata`);
    await sql`
      ${passageImpactsSql({ sourceId, version, bm25 })}
      insert into knowledge_terms (source_id, version, term, df, ords, imps)
      select ${sourceId}, ${version}::int, lexeme, count(*)::int,
             array_agg(ordinal order by imp desc, ordinal), array_agg(imp order by imp desc, ordinal)
      from post
      group by lexeme
    `.execute(db);
    const stats = await sql<{ passages: number; total: number; analyzers: string[] | null }>`
      select count(*)::int as passages, coalesce(sum(length), 0)::bigint as total,
             array_agg(distinct ${cfg}) as analyzers
      from knowledge_passages p where source_id = ${sourceId} and version = ${version}
    `.execute(db);
    const row = stats.rows[0]!;
    return { passages: row.passages, totalLength: Number(row.total), analyzers: row.analyzers ?? [DEFAULT_ANALYZER] };
  }

  /**
   * The atomic swap: the version becomes the one queries read, and older versions are deleted, in one
   * transaction. A stale build (older than the live version) changes nothing. Returns whether it went live.
   */
  async publishVersion(db: Kysely<DB>, input: { sourceId: string; version: number; passages: number; totalLength: number; analyzers?: string[] }) {
    return db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('knowledge_sources')
        .set({
          active_version: input.version,
          passage_count: input.passages,
          total_length: input.totalLength,
          analyzers: input.analyzers ?? [DEFAULT_ANALYZER],
          embedded_passages: 0,
          status: sql`case when sync_seq = ${input.version} then 'ready' else status end`,
          error_code: sql`case when sync_seq = ${input.version} then null else error_code end`,
          error_message: sql`case when sync_seq = ${input.version} then null else error_message end`,
          last_synced_at: new Date(),
          updated_at: new Date(),
        })
        .where('id', '=', input.sourceId)
        .where((eb) => eb.or([eb('active_version', 'is', null), eb('active_version', '<=', input.version)]))
        .returning('id')
        .executeTakeFirst();
      if (!row) return false;
      await tx.deleteFrom('knowledge_terms').where('source_id', '=', input.sourceId).where('version', '<', input.version).execute();
      await tx.deleteFrom('knowledge_passages').where('source_id', '=', input.sourceId).where('version', '<', input.version).execute();
      return true;
    });
  }

  /** Records a failed sync; the live version (if any) stays searchable. */
  async failVersion(db: Kysely<DB>, input: { sourceId: string; version: number; code: string; message: string }) {
    await db.transaction().execute(async (tx) => {
      await tx
        .updateTable('knowledge_sources')
        .set({
          status: sql`case when sync_seq = ${input.version} then 'failed' else status end`,
          error_code: input.code,
          error_message: input.message.slice(0, 1000),
          last_synced_at: new Date(),
          updated_at: new Date(),
        })
        .where('id', '=', input.sourceId)
        .execute();
      await this.clearVersion(tx, input.sourceId, input.version);
    });
  }
}
