import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import { KnowledgeRepo, type PassageInsert } from './knowledge.repo';
import { AppError } from '../domain/errors';
import { derivedId, IdPrefix } from '../domain/ids';
import { chunkDocument } from './ingest/chunker';
import { BM25_B, BM25_K1 } from './index/scoring';
import { crawlSite } from './ingest/crawler';
import { textToBlocks, type ParsedDocument } from './ingest/document';
import { parseDocument } from './ingest/document-parse';
import type { Logger } from '../observability/logger';
import type { EventsService } from '../webhooks/events.service';
import { toKnowledgeSourceObject } from './knowledge-source.schemas';
import { queryApiSource } from './index/api-source.client';
import type { AccountsService } from '../accounts/accounts.service';
import type { Scope } from '../domain/principal';

const INSERT_BATCH = 500;

/**
 * The ingestion use cases the sync workflow's activities call: begin (fix the version), index (fetch,
 * parse, chunk, write passages and posting lists for that version), publish (atomic swap + ready event),
 * fail (drop the partial version + failed event). Each is idempotent under activity retries.
 */
export class KnowledgeIngestionService {
  private readonly repo = new KnowledgeRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      accounts: AccountsService;
      events: EventsService;
      knowledge: Config['knowledge'];
      allowPrivateNetwork: boolean;
      log?: Logger;
    },
  ) {}

  async beginSync(input: { sourceId: string; version?: number }): Promise<{ version: number } | null> {
    const { db } = this.deps;
    if (input.version !== undefined) {
      const ok = await this.repo.markIndexing(db, input.sourceId, input.version);
      // A newer sync was requested meanwhile: it will build a fresher version, this one is redundant.
      return ok ? { version: input.version } : null;
    }
    const version = await this.repo.allocateSyncVersion(db, input.sourceId);
    return version === undefined ? null : { version };
  }

  async indexSource(input: { sourceId: string; version: number; heartbeat?: (detail: unknown) => void }) {
    try {
      return await this.buildVersion(input);
    } catch (err) {
      // The source was deleted while it was being indexed: nothing to retry.
      if ((err as { code?: string }).code === '23503') throw new AppError('resource_missing', `No such knowledge source: '${input.sourceId}'`);
      throw err;
    }
  }

  private async buildVersion(input: { sourceId: string; version: number; heartbeat?: (detail: unknown) => void }) {
    const { db, knowledge } = this.deps;
    const source = await this.repo.getSourceSummary(db, input.sourceId);
    if (!source) throw new AppError('resource_missing', `No such knowledge source: '${input.sourceId}'`);
    const docs = await this.loadDocuments(source, input.heartbeat);
    await this.repo.clearVersion(db, source.id, input.version);
    let ordinal = 0;
    let batch: PassageInsert[] = [];
    const flush = async () => {
      await this.repo.insertPassages(db, { sourceId: source.id, version: input.version, baseId: source.knowledge_base_id, firstOrdinal: ordinal, passages: batch });
      ordinal += batch.length;
      batch = [];
      input.heartbeat?.({ passages: ordinal });
    };
    for (const doc of docs) {
      for (const p of this.passagesOf(doc, source.metadata)) {
        batch.push(p);
        if (batch.length >= INSERT_BATCH) await flush();
      }
    }
    if (batch.length) await flush();
    const stats = await this.repo.buildTermIndex(db, source.id, input.version, { k1: BM25_K1, b: BM25_B });
    return { passages: stats.passages, totalLength: stats.totalLength, analyzers: stats.analyzers };
  }

  /** A document's passages: chunked by structure, the source's metadata under the document's own. */
  passagesOf(doc: ParsedDocument & { recordId?: string }, sourceMetadata: Record<string, string>): PassageInsert[] {
    const { knowledge } = this.deps;
    const chunks = chunkDocument(
      { ...doc, metadata: { ...sourceMetadata, ...(doc.metadata ?? {}) } },
      { maxChars: knowledge.chunkMaxChars, overlapChars: knowledge.chunkOverlapChars },
    );
    return chunks.map((c) => ({ ...c, ownMetadata: doc.metadata ?? {}, ...(doc.recordId ? { recordId: doc.recordId } : {}) }));
  }

  /** A record as the chunker reads it (the whole sync and the one-record re-index alike). */
  recordDocument(record: { id: string; title: string; content: string; url: string | null; metadata: Record<string, string> }): ParsedDocument & { recordId: string } {
    return { title: record.title, url: record.url ?? undefined, blocks: textToBlocks(record.content), metadata: record.metadata, recordId: record.id };
  }

  private async loadDocuments(
    source: NonNullable<Awaited<ReturnType<KnowledgeRepo['getSourceSummary']>>>,
    heartbeat?: (detail: unknown) => void,
  ): Promise<(ParsedDocument & { recordId?: string })[]> {
    const { db, knowledge } = this.deps;
    switch (source.type) {
      case 'url': {
        const { pages } = await crawlSite({
          startUrl: source.url!,
          maxPages: knowledge.crawlMaxPages,
          maxDepth: knowledge.crawlMaxDepth,
          timeoutMs: knowledge.fetchTimeoutMs,
          allowPrivate: this.deps.allowPrivateNetwork,
          onPage: (url, count) => heartbeat?.({ url, count }),
        });
        return pages;
      }
      case 'document': {
        const file = await this.repo.getFileData(db, source.file_id!);
        if (!file) throw new AppError('resource_missing', `No such file: '${source.file_id}'`);
        return [await parseDocument({ format: file.format, filename: file.filename, data: file.data, limits: knowledge })];
      }
      case 'record': {
        const records = await this.repo.getSourceRecords(db, source.id);
        return records.map((r) => this.recordDocument(r));
      }
      case 'api':
        await this.probeApiSource(source);
        return [];
    }
  }

  /** An api source is indexed by nothing: its sync checks that the endpoint answers a signed probe. */
  private async probeApiSource(source: { id: string; account_id: string; livemode: boolean; knowledge_base_id: string; url: string | null; timeout_ms: number | null }) {
    const secret = await this.deps.accounts.getSigningSecret({ accountId: source.account_id, livemode: source.livemode });
    try {
      await queryApiSource({
        url: source.url!,
        secret,
        knowledgeBaseId: source.knowledge_base_id,
        sourceId: source.id,
        query: '',
        topK: 1,
        timeoutMs: source.timeout_ms ?? this.deps.knowledge.apiTimeoutMs,
        allowPrivate: this.deps.allowPrivateNetwork,
        probe: true,
      });
    } catch (err) {
      throw new AppError('source_unreachable', `The api source ${(err as Error).message.replace(/^the api source /, '')}`, { param: 'url' });
    }
  }

  async publishSync(input: { sourceId: string; version: number; passages: number; totalLength: number; analyzers?: string[]; workflowId: string }) {
    const { db } = this.deps;
    const live = await this.repo.publishVersion(db, input);
    const scope = await this.scopeOf(input.sourceId);
    const row = scope && (await this.repo.getSourceById(db, scope, input.sourceId));
    if (!live || !row) return { published: false };
    await this.deps.events.emit({
      accountId: row.account_id, livemode: row.livemode,
      type: 'knowledge.source.ready',
      data: toKnowledgeSourceObject(row),
      eventId: derivedId(IdPrefix.event, input.workflowId, 'knowledge.source.ready', String(input.version)),
    });
    return { published: true };
  }

  async failSync(input: { sourceId: string; version: number; code: string; message: string; workflowId: string }) {
    const { db } = this.deps;
    const scope = await this.scopeOf(input.sourceId);
    if (!scope) return;
    await this.repo.failVersion(db, input);
    const row = await this.repo.getSourceById(db, scope, input.sourceId);
    if (!row) return;
    await this.deps.events.emit({
      ...scope,
      type: 'knowledge.source.failed',
      data: { ...toKnowledgeSourceObject(row), error: { code: input.code, message: input.message } },
      eventId: derivedId(IdPrefix.event, input.workflowId, 'knowledge.source.failed', String(input.version)),
    });
  }

  /** The account and mode of a source (undefined once deleted). */
  private async scopeOf(sourceId: string): Promise<Scope | undefined> {
    const source = await this.repo.getSourceSummary(this.deps.db, sourceId);
    return source ? { accountId: source.account_id, livemode: source.livemode } : undefined;
  }
}
