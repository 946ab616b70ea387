import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { KnowledgeRecordInput } from '../db/tables/knowledge';
import { paginate, type PageParams } from '../db/pagination';
import { IdPrefix, newId } from '../domain/ids';
import { analyzerSql } from './index/analyzers';
import { passageImpactsSql, passageIndexedText } from './index/term-postings';

type Db = Kysely<DB> | Transaction<DB>;

const INSERT_BATCH = 1000;

/**
 * Records of record sources (`knowledge_records`), and the one-record re-index of a source's live version:
 * that record's passages replaced and its postings moved, every other passage row left as it is.
 */
export class KnowledgeRecordRepo {
  async insertRecords(db: Db, sourceId: string, records: KnowledgeRecordInput[]) {
    // created_at steps by a microsecond so the records keep their pushed order (lists read them oldest first).
    const base = Date.now() * 1000;
    for (let i = 0; i < records.length; i += INSERT_BATCH) {
      const rows = records.slice(i, i + INSERT_BATCH).map((r, j) => ({
        id: newId(IdPrefix.record),
        source_id: sourceId,
        title: r.title,
        content: r.content,
        url: r.url ?? null,
        metadata: JSON.stringify(r.metadata ?? {}),
        created_at: sql<Date>`to_timestamp(${base + i + j}::float8 / 1000000)`,
        updated_at: sql<Date>`now()`,
      }));
      await db.insertInto('knowledge_records').values(rows).execute();
    }
  }

  async insertRecord(db: Db, sourceId: string, record: KnowledgeRecordInput) {
    return db
      .insertInto('knowledge_records')
      .values({ id: newId(IdPrefix.record), source_id: sourceId, title: record.title, content: record.content, url: record.url ?? null, metadata: JSON.stringify(record.metadata ?? {}) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Replaces every record of a source (a push of `records` on the source). */
  async replaceRecords(db: Db, sourceId: string, records: KnowledgeRecordInput[]) {
    await db.deleteFrom('knowledge_records').where('source_id', '=', sourceId).execute();
    await this.insertRecords(db, sourceId, records);
  }

  async listAllRecords(db: Db, sourceId: string) {
    return db.selectFrom('knowledge_records').selectAll().where('source_id', '=', sourceId).orderBy('created_at').orderBy('id').execute();
  }

  /** One page of a source's records, in their order (oldest first). */
  async listRecords(db: Kysely<DB>, sourceId: string, page: PageParams) {
    return paginate(db, 'knowledge_records', db.selectFrom('knowledge_records').selectAll().where('source_id', '=', sourceId), page, 'asc');
  }

  async getRecord(db: Db, sourceId: string, recordId: string) {
    return db.selectFrom('knowledge_records').selectAll().where('source_id', '=', sourceId).where('id', '=', recordId).executeTakeFirst();
  }

  async updateRecord(db: Db, sourceId: string, recordId: string, patch: { title?: string; content?: string; url?: string | null; metadata?: Record<string, string> }) {
    const { metadata, ...rest } = patch;
    return db
      .updateTable('knowledge_records')
      .set({ ...rest, ...(metadata ? { metadata: JSON.stringify(metadata) } : {}), updated_at: new Date() })
      .where('source_id', '=', sourceId)
      .where('id', '=', recordId)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteRecord(db: Db, sourceId: string, recordId: string) {
    const row = await db.deleteFrom('knowledge_records').where('source_id', '=', sourceId).where('id', '=', recordId).returning('id').executeTakeFirst();
    return Boolean(row);
  }

  async countRecords(db: Db, sourceId: string) {
    const row = await db.selectFrom('knowledge_records').select(sql<number>`count(*)::int`.as('n')).where('source_id', '=', sourceId).executeTakeFirstOrThrow();
    return row.n;
  }

  /**
   * The source row locked for the rest of the transaction: record edits of one source take turns (they
   * share its posting lists, ordinals and statistics), and a sync cannot allocate a version meanwhile.
   */
  async lockSource(tx: Transaction<DB>, input: { accountId: string; livemode: boolean; knowledgeBaseId: string; sourceId: string }) {
    return tx
      .selectFrom('knowledge_sources')
      .selectAll()
      .where('id', '=', input.sourceId)
      .where('account_id', '=', input.accountId)
      .where('livemode', '=', input.livemode)
      .where('knowledge_base_id', '=', input.knowledgeBaseId)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Whether the version holds passages indexed before records had ids (they cannot be replaced one record at a time). */
  async hasPassagesWithoutRecord(db: Db, sourceId: string, version: number) {
    const row = await db
      .selectFrom('knowledge_passages')
      .select('ordinal')
      .where('source_id', '=', sourceId)
      .where('version', '=', version)
      .where('record_id', 'is', null)
      .limit(1)
      .executeTakeFirst();
    return Boolean(row);
  }

  /**
   * Removes a record's passages from a version: their ordinals leave the posting lists of the terms they
   * hold (a list left empty is deleted), then the rows go. Returns how many passages and index terms left.
   */
  async removeRecordPassages(tx: Transaction<DB>, input: { sourceId: string; version: number; recordId: string }): Promise<{ passages: number; length: number }> {
    const { sourceId, version, recordId } = input;
    const old = await tx
      .selectFrom('knowledge_passages')
      .select(['ordinal', 'length'])
      .where('source_id', '=', sourceId)
      .where('version', '=', version)
      .where('record_id', '=', recordId)
      .execute();
    if (old.length === 0) return { passages: 0, length: 0 };
    const ords = old.map((r) => r.ordinal);
    const cfg = analyzerSql(sql`p.metadata`);
    // The terms are found by tokenizing the passages again (the same analyzer as the index): only their
    // lists are read and rewritten, by primary key.
    await sql`
      with terms as materialized (
        select distinct t.lexeme as term
        from knowledge_passages p, unnest(to_tsvector(${cfg}::regconfig, ${passageIndexedText})) t
        where p.source_id = ${sourceId} and p.version = ${version} and p.ordinal = any(${ords}::int[])
      ),
      kept as materialized (
        select k.term, array_agg(u.o order by u.i) as ords, array_agg(u.imp order by u.i) as imps
        from terms
        join knowledge_terms k on k.source_id = ${sourceId} and k.version = ${version} and k.term = terms.term
        cross join lateral unnest(k.ords, k.imps) with ordinality as u(o, imp, i)
        where not (u.o = any(${ords}::int[]))
        group by k.term
      ),
      changed as (
        update knowledge_terms k set ords = kept.ords, imps = kept.imps, df = cardinality(kept.ords)
        from kept
        where k.source_id = ${sourceId} and k.version = ${version} and k.term = kept.term
        returning k.term
      )
      delete from knowledge_terms k
      using terms
      where k.source_id = ${sourceId} and k.version = ${version} and k.term = terms.term
        and not exists (select 1 from kept where kept.term = terms.term)
    `.execute(tx);
    await tx.deleteFrom('knowledge_passages').where('source_id', '=', sourceId).where('version', '=', version).where('ordinal', 'in', ords).execute();
    return { passages: old.length, length: old.reduce((n, r) => n + r.length, 0) };
  }

  /** The first free ordinal of a version (a record's new passages go after every other one). */
  async nextOrdinal(db: Db, sourceId: string, version: number) {
    const row = await db
      .selectFrom('knowledge_passages')
      .select(sql<number>`coalesce(max(ordinal), -1)::int + 1`.as('next'))
      .where('source_id', '=', sourceId)
      .where('version', '=', version)
      .executeTakeFirstOrThrow();
    return row.next;
  }

  /**
   * Indexes the passages of a version from `firstOrdinal` on (a record's, just inserted): their lengths,
   * and their postings merged into the version's lists in impact order, with the BM25 impact computed from
   * the version's average length after the change (`otherPassages` and `otherLength`: the rest of the
   * version). Other passages' postings keep the impacts they were built with. Returns the new passages' count,
   * total length and analyzers.
   */
  async indexPassagesFrom(
    tx: Transaction<DB>,
    input: { sourceId: string; version: number; firstOrdinal: number; otherPassages: number; otherLength: number; bm25: { k1: number; b: number } },
  ): Promise<{ passages: number; length: number; analyzers: string[] }> {
    const { sourceId, version, firstOrdinal } = input;
    const cfg = analyzerSql(sql`p.metadata`);
    await sql`
      ${passageImpactsSql({ sourceId, version, firstOrdinal, others: { passages: input.otherPassages, length: input.otherLength }, bm25: input.bm25 })}
      insert into knowledge_terms as k (source_id, version, term, df, ords, imps)
      select ${sourceId}, ${version}::int, lexeme, count(*)::int,
             array_agg(ordinal order by imp desc, ordinal), array_agg(imp order by imp desc, ordinal)
      from post
      group by lexeme
      on conflict (source_id, version, term) do update set
        (ords, imps) = (
          select array_agg(u.o order by u.imp desc, u.o), array_agg(u.imp order by u.imp desc, u.o)
          from unnest(k.ords || excluded.ords, k.imps || excluded.imps) as u(o, imp)
        ),
        df = k.df + excluded.df
    `.execute(tx);
    const { rows } = await sql<{ passages: number; total: number; analyzers: string[] | null }>`
      select count(*)::int as passages, coalesce(sum(length), 0)::bigint as total, array_agg(distinct ${cfg}) as analyzers
      from knowledge_passages p where source_id = ${sourceId} and version = ${version} and ordinal >= ${firstOrdinal}
    `.execute(tx);
    const row = rows[0]!;
    return { passages: row.passages, length: Number(row.total), analyzers: row.analyzers ?? [] };
  }

  /** The live version's statistics after a one-record change (embedded_passages is recounted by the backfill). */
  async applyRecordStats(
    tx: Transaction<DB>,
    input: { sourceId: string; removed: { passages: number; length: number }; added: { passages: number; length: number; analyzers: string[] }; recordCount: number },
  ) {
    return tx
      .updateTable('knowledge_sources')
      .set({
        passage_count: sql`greatest(passage_count - ${input.removed.passages} + ${input.added.passages}, 0)`,
        total_length: sql`greatest(total_length - ${input.removed.length} + ${input.added.length}, 0)`,
        embedded_passages: sql`greatest(embedded_passages - ${input.removed.passages}, 0)`,
        analyzers: sql`(select array_agg(distinct a) from unnest(analyzers || ${input.added.analyzers}::text[]) a)`,
        record_count: input.recordCount,
        last_synced_at: new Date(),
        updated_at: new Date(),
      })
      .where('id', '=', input.sourceId)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async setRecordCount(db: Db, sourceId: string, recordCount: number) {
    await db.updateTable('knowledge_sources').set({ record_count: recordCount, updated_at: new Date() }).where('id', '=', sourceId).execute();
  }
}
