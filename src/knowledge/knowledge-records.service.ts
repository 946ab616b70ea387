import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { KnowledgeRecordInput, KnowledgeSourceTable } from '../db/tables/knowledge';
import type { PageParams } from '../db/pagination';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import type { Scope } from '../domain/principal';
import type { ListObject } from '../domain/api-schema';
import type { Logger } from '../observability/logger';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService } from '../webhooks/events.service';
import {
  knowledgeEmbedWorkflowContract,
  knowledgeEmbedWorkflowId,
  knowledgeSyncWorkflowContract,
  knowledgeSyncWorkflowId,
} from '../../workflows/shared/knowledge.contracts';
import { KnowledgeRecordRepo } from './knowledge-record.repo';
import { KnowledgeRepo } from './knowledge.repo';
import { toKnowledgeRecordObject, type KnowledgeRecordObject } from './knowledge-record.schemas';
import { toKnowledgeSourceObject } from './knowledge-source.schemas';
import type { KnowledgeIngestionService } from './knowledge-ingestion.service';
import { BM25_B, BM25_K1 } from './index/scoring';

/** Records a source may hold: the cap of a push (POST …/sources with `records`). */
export const MAX_RECORDS_PER_SOURCE = 20_000;

type SourceRef = Scope & { knowledgeBaseId: string; sourceId: string };
type SourceRow = Selectable<KnowledgeSourceTable>;

/** What a record change did to the index (the routes answer the record; tests and logs read this). */
export type RecordReindex =
  /** The live version changed in place: the record's passages replaced, searchable at commit. */
  | { kind: 'in_place'; version: number }
  /** A whole sync was started (no live version yet, passages from before record ids, or a build in flight). */
  | { kind: 'sync'; version: number };

/**
 * Reading and editing one record of a record source at a time. A change re-indexes that record only, in
 * the live version and in the same transaction as the record row (its old passages and postings out, its
 * new ones in; the other records' passage rows untouched), under the source row's lock so concurrent edits
 * of one source take turns and none is lost; then the embedding backfill (`knowledge-embed:{src}`) embeds
 * the new passages. Where the live version cannot be changed in place (see RecordReindex), a whole sync
 * builds a new version beside it instead and swaps it in, as any re-sync does.
 */
export class KnowledgeRecordsService {
  private readonly repo = new KnowledgeRecordRepo();
  private readonly sources = new KnowledgeRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: Pick<WorkflowGateway, 'start'>;
      events: EventsService;
      ingestion: Pick<KnowledgeIngestionService, 'passagesOf' | 'recordDocument'>;
      log?: Logger;
    },
  ) {}

  /** The source, if it is this caller's and under this base; 422 source_not_record for another type. */
  private async recordSource(ref: SourceRef, db: Kysely<DB> | Transaction<DB> = this.deps.db): Promise<SourceRow> {
    const row = await this.sources.getSourceById(db, { accountId: ref.accountId, livemode: ref.livemode }, ref.sourceId);
    if (!row || row.knowledge_base_id !== ref.knowledgeBaseId) throw notFound('knowledge source', ref.sourceId, 'src');
    return assertRecordSource(row);
  }

  async listRecords(ref: SourceRef & { page: PageParams }): Promise<ListObject<KnowledgeRecordObject>> {
    const source = await this.recordSource(ref);
    const page = await this.repo.listRecords(this.deps.db, source.id, ref.page);
    return { object: 'list', data: page.data.map((r) => toKnowledgeRecordObject(r, source.knowledge_base_id)), has_more: page.has_more };
  }

  async getRecord(ref: SourceRef & { recordId: string }): Promise<KnowledgeRecordObject> {
    const source = await this.recordSource(ref);
    const row = await this.repo.getRecord(this.deps.db, source.id, ref.recordId);
    if (!row) throw notFound('knowledge record', ref.recordId, 'record_id');
    return toKnowledgeRecordObject(row, source.knowledge_base_id);
  }

  async addRecord(ref: SourceRef & { record: KnowledgeRecordInput }): Promise<KnowledgeRecordObject & { reindex: RecordReindex }> {
    return this.change(ref, async (tx, source) => {
      const count = await this.repo.countRecords(tx, source.id);
      if (count >= MAX_RECORDS_PER_SOURCE) {
        throw new AppError('parameter_unprocessable', `A record source holds at most ${MAX_RECORDS_PER_SOURCE} records; this one is full`);
      }
      const row = await this.repo.insertRecord(tx, source.id, ref.record);
      return { recordId: row.id, row, recordCount: count + 1 };
    });
  }

  async updateRecord(
    ref: SourceRef & { recordId: string; patch: { title?: string; content?: string; url?: string | null; metadata?: Record<string, string> } },
  ): Promise<KnowledgeRecordObject & { reindex: RecordReindex }> {
    return this.change(ref, async (tx, source) => {
      const row = await this.repo.updateRecord(tx, source.id, ref.recordId, ref.patch);
      if (!row) throw notFound('knowledge record', ref.recordId, 'record_id');
      return { recordId: row.id, row, recordCount: source.record_count ?? (await this.repo.countRecords(tx, source.id)) };
    });
  }

  async deleteRecord(ref: SourceRef & { recordId: string }) {
    await this.change(ref, async (tx, source) => {
      const row = await this.repo.getRecord(tx, source.id, ref.recordId);
      if (!row) throw notFound('knowledge record', ref.recordId, 'record_id');
      await this.repo.deleteRecord(tx, source.id, ref.recordId);
      return { recordId: row.id, row, recordCount: await this.repo.countRecords(tx, source.id) };
    });
    return { id: ref.recordId, object: 'knowledge_record' as const, deleted: true as const };
  }

  /**
   * One record change and its re-index in one transaction under the source's lock; after the commit, the
   * workflow that finishes it (the embedding backfill, or the whole sync).
   */
  private async change(
    ref: SourceRef,
    write: (tx: Transaction<DB>, source: SourceRow) => Promise<{ recordId: string; row: Parameters<typeof toKnowledgeRecordObject>[0]; recordCount: number }>,
  ): Promise<KnowledgeRecordObject & { reindex: RecordReindex }> {
    const { db } = this.deps;
    const { record, reindex } = await db.transaction().execute(async (tx) => {
      const locked = await this.repo.lockSource(tx, { accountId: ref.accountId, livemode: ref.livemode, knowledgeBaseId: ref.knowledgeBaseId, sourceId: ref.sourceId });
      if (!locked) throw notFound('knowledge source', ref.sourceId, 'src');
      const source = assertRecordSource(locked);
      const written = await write(tx, source);
      const record = toKnowledgeRecordObject(written.row, source.knowledge_base_id);
      const reindex = await this.reindexRecord(tx, source, written);
      return { record, reindex };
    });
    await this.finish(ref.sourceId, reindex);
    return { ...record, reindex };
  }

  /**
   * The record's passages in the live version replaced in place when that version can take it: it exists,
   * it was built with record ids, and no build is in flight (a build reads the records when it starts, so
   * one started before this change would go live without it: a fresh sync follows it). Otherwise a whole
   * sync is allocated here (inside the lock) and started after the commit.
   */
  private async reindexRecord(tx: Transaction<DB>, source: SourceRow, written: { recordId: string; recordCount: number }): Promise<RecordReindex> {
    const live = source.active_version;
    const canEditLive = live !== null && !(await this.repo.hasPassagesWithoutRecord(tx, source.id, live));
    if (canEditLive) {
      const removed = await this.repo.removeRecordPassages(tx, { sourceId: source.id, version: live, recordId: written.recordId });
      const current = await this.repo.getRecord(tx, source.id, written.recordId);
      let added = { passages: 0, length: 0, analyzers: [] as string[] };
      if (current) {
        const firstOrdinal = await this.repo.nextOrdinal(tx, source.id, live);
        const passages = this.deps.ingestion.passagesOf(this.deps.ingestion.recordDocument(current), source.metadata);
        await this.sources.insertPassages(tx, { sourceId: source.id, version: live, baseId: source.knowledge_base_id, firstOrdinal, passages });
        added = await this.repo.indexPassagesFrom(tx, {
          sourceId: source.id, version: live, firstOrdinal,
          otherPassages: source.passage_count - removed.passages, otherLength: Number(source.total_length) - removed.length,
          bm25: { k1: BM25_K1, b: BM25_B },
        });
      }
      const updated = await this.repo.applyRecordStats(tx, { sourceId: source.id, removed, added, recordCount: written.recordCount });
      const buildInFlight = source.status === 'indexing' && source.sync_seq > live;
      if (!buildInFlight) {
        await this.deps.events.emit(
          { accountId: source.account_id, livemode: source.livemode, type: 'knowledge.source.ready', data: toKnowledgeSourceObject(updated), eventId: newId(IdPrefix.event) },
          { tx },
        );
        return { kind: 'in_place', version: live };
      }
    } else {
      await this.repo.setRecordCount(tx, source.id, written.recordCount);
    }
    const version = await this.sources.allocateSyncVersion(tx, source.id);
    return { kind: 'sync', version: version! };
  }

  private async finish(sourceId: string, reindex: RecordReindex) {
    if (reindex.kind === 'sync') {
      await this.deps.workflows.start(knowledgeSyncWorkflowContract, {
        workflowId: knowledgeSyncWorkflowId(sourceId, reindex.version),
        input: { sourceId, version: reindex.version, trigger: 'update' },
        memo: { sourceId },
      });
      return;
    }
    try {
      await this.deps.workflows.start(knowledgeEmbedWorkflowContract, {
        workflowId: knowledgeEmbedWorkflowId(sourceId),
        input: { sourceId, version: reindex.version },
        memo: { sourceId },
        rerun: true,
      });
    } catch (err) {
      // The record and its passages are committed and searchable lexically; its vectors come with the next
      // record change or sync of the source.
      this.deps.log?.warn({ err: (err as Error).message, sourceId }, 'Record re-index: could not start the embedding backfill');
    }
  }
}

function assertRecordSource(row: SourceRow): SourceRow {
  if (row.type !== 'record') {
    throw new AppError('source_not_record', `Source '${row.id}' is a ${row.type} source: only record sources have records to read or edit one by one`, { param: 'src' });
  }
  return row;
}
