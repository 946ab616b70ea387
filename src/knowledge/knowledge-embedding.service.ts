import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import { passageEmbeddingText } from './index/embedding-text';
import type { EmbeddingsPort } from './index/embeddings.client';
import { VectorIndexRepo } from './index/vector-index.repo';

/** Seconds between recounts of a source's `embedded_passages` while its backfill runs. */
const COUNT_EVERY_MS = 5_000;

export interface EmbedSourceResult {
  /** `off`: embeddings disabled; `stale`: a newer version went live meanwhile; `done`: every passage has a vector. */
  status: 'off' | 'stale' | 'done';
  embeddedPassages: number;
  /** Vectors computed by this run (the rest were reused by content hash). */
  computed: number;
}

/**
 * The embedding backfill the sync workflow runs once a version is live (searchable lexically at once):
 * the passages whose content has no vector yet are embedded in batches, in ordinal order, heartbeating the
 * last ordinal done so a retried activity resumes there; unchanged passages reuse the vectors of earlier
 * versions (same content hash). The source's `embedded_passages` shows the progress.
 */
export class KnowledgeEmbeddingService {
  private readonly repo = new VectorIndexRepo();

  constructor(private readonly deps: { db: Kysely<DB>; embeddings?: EmbeddingsPort; batchSize: number; log?: Logger }) {}

  async embedSource(input: {
    sourceId: string;
    version: number;
    resumeAfter?: number;
    heartbeat?: (detail: { after: number; computed: number }) => void;
  }): Promise<EmbedSourceResult> {
    try {
      return await this.backfill(input);
    } catch (err) {
      // The source was deleted meanwhile (its vectors' foreign key): nothing left to embed.
      if ((err as { code?: string }).code === '23503') return { status: 'stale', embeddedPassages: 0, computed: 0 };
      throw err;
    }
  }

  private async backfill(input: {
    sourceId: string;
    version: number;
    /** The last ordinal a previous attempt finished (from its heartbeat). */
    resumeAfter?: number;
    heartbeat?: (detail: { after: number; computed: number }) => void;
  }): Promise<EmbedSourceResult> {
    const { db, embeddings } = this.deps;
    if (!embeddings) return { status: 'off', embeddedPassages: 0, computed: 0 };
    const model = embeddings.model;
    const live = async () => (await this.repo.getActiveVersion(db, input.sourceId)) === input.version;
    if (!(await live())) return { status: 'stale', embeddedPassages: 0, computed: 0 };

    let embedded = await this.repo.refreshEmbeddedCount(db, { sourceId: input.sourceId, version: input.version, model });
    let after = input.resumeAfter ?? -1;
    let computed = 0;
    let counted = Date.now();
    for (;;) {
      const batch = await this.repo.listPassagesToEmbed(db, { sourceId: input.sourceId, version: input.version, model, afterOrdinal: after, limit: this.deps.batchSize });
      if (batch.length === 0) break;
      const unique = [...new Map(batch.map((p) => [p.content_hash.toString('hex'), p])).values()];
      const vectors = await embeddings.embed({ texts: unique.map(passageEmbeddingText), kind: 'passage' });
      await this.repo.insertEmbeddings(db, { sourceId: input.sourceId, model, rows: unique.map((p, i) => ({ contentHash: p.content_hash, vector: vectors[i]! })) });
      computed += unique.length;
      after = batch[batch.length - 1]!.ordinal;
      input.heartbeat?.({ after, computed });
      if (Date.now() - counted > COUNT_EVERY_MS) {
        counted = Date.now();
        if (!(await live())) return { status: 'stale', embeddedPassages: embedded, computed };
        embedded = await this.repo.refreshEmbeddedCount(db, { sourceId: input.sourceId, version: input.version, model });
      }
    }
    embedded = await this.repo.refreshEmbeddedCount(db, { sourceId: input.sourceId, version: input.version, model });
    const pruned = await this.repo.pruneEmbeddings(db, { sourceId: input.sourceId, model });
    this.deps.log?.info({ sourceId: input.sourceId, version: input.version, embedded, computed, pruned, model }, 'Knowledge source embedded');
    return { status: 'done', embeddedPassages: embedded, computed };
  }
}
