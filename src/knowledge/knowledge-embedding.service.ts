import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import {
  knowledgeEmbedWorkflowContract,
  knowledgeEmbedWorkflowId,
  type KnowledgeEmbedResult,
} from '../../workflows/shared/knowledge.contracts';
import { passageEmbeddingText, sentenceEmbeddingTexts } from './index/embedding-text';
import type { EmbeddingsPort } from './index/embeddings.client';
import { VectorIndexRepo } from './index/vector-index.repo';

/** Seconds between recounts of a source's `embedded_passages` while its backfill runs. */
const COUNT_EVERY_MS = 5_000;

/**
 * The embedding backfill the sync workflow runs once a version is live (searchable lexically at once):
 * the passages whose content has no vector yet are embedded in batches, in ordinal order, heartbeating the
 * last ordinal done so a retried activity resumes there; unchanged passages reuse the vectors of earlier
 * versions (same content hash). The source's `embedded_passages` shows the progress. With `sentences`
 * (EMBEDDINGS_SENTENCES), each passage also gets its sentence vectors (sentenceEmbeddingTexts), and a
 * stored vector that lacks them (computed before, or with the switch off) gets them alone.
 */
export class KnowledgeEmbeddingService {
  private readonly repo = new VectorIndexRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      embeddings?: EmbeddingsPort;
      batchSize: number;
      sentences: boolean;
      log?: Logger;
      /** Where the sweep starts its backfills (absent: no sweep). */
      workflows?: Pick<WorkflowGateway, 'start'>;
    },
  ) {}

  /**
   * The boot sweep: starts the embedding backfill alone (knowledgeEmbedWorkflow, one per source) for each
   * source whose live version has stored vectors of the model without sentence vectors, so sources that
   * never sync again (refresh `manual`) get them too. Nothing when embeddings or sentence vectors are off.
   * `started` leaves out sources whose backfill is already running.
   */
  async sweepMissingSentenceVectors(opts: { stopping?: () => boolean } = {}): Promise<{ found: number; started: number }> {
    const { db, embeddings, sentences, workflows } = this.deps;
    if (!embeddings || !sentences || !workflows) return { found: 0, started: 0 };
    const sources = await this.repo.listSourcesMissingSentenceVectors(db, { model: embeddings.model });
    let started = 0;
    let failed = 0;
    for (const s of sources) {
      if (opts.stopping?.()) break;
      try {
        const fresh = await workflows.start(knowledgeEmbedWorkflowContract, {
          workflowId: knowledgeEmbedWorkflowId(s.source_id),
          input: { sourceId: s.source_id, version: s.version },
          memo: { sourceId: s.source_id },
          rerun: true,
        });
        if (fresh) started++;
        failed = 0;
      } catch (err) {
        // One source that cannot be started does not hold back the others; Temporal down stops the sweep.
        this.deps.log?.warn({ err: (err as Error).message, sourceId: s.source_id }, 'Sentence vector sweep: could not start the backfill');
        if (++failed >= 3) break;
      }
    }
    return { found: sources.length, started };
  }

  async embedSource(input: {
    sourceId: string;
    version: number;
    resumeAfter?: number;
    heartbeat?: (detail: { after: number; computed: number }) => void;
  }): Promise<KnowledgeEmbedResult> {
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
  }): Promise<KnowledgeEmbedResult> {
    const { db, embeddings } = this.deps;
    if (!embeddings) return { status: 'off', embeddedPassages: 0, computed: 0 };
    const model = embeddings.model;
    const live = async () => (await this.repo.getActiveVersion(db, input.sourceId)) === input.version;
    if (!(await live())) return { status: 'stale', embeddedPassages: 0, computed: 0 };

    let embedded = await this.repo.refreshEmbeddedCount(db, { sourceId: input.sourceId, version: input.version, model });
    let after = input.resumeAfter ?? -1;
    let computed = 0;
    let sentenceVectors = 0;
    let counted = Date.now();
    const { batchSize, sentences } = this.deps;
    for (;;) {
      const batch = await this.repo.listPassagesToEmbed(db, { sourceId: input.sourceId, version: input.version, model, afterOrdinal: after, limit: batchSize, sentences });
      if (batch.length === 0) break;
      const unique = [...new Map(batch.map((p) => [p.content_hash.toString('hex'), p])).values()];
      // The passages' own texts first, stored as soon as they are embedded (so a failed sentence request
      // loses no passage vector: the retry lists those rows for their sentences only), then their
      // sentences'; each in requests of at most batchSize texts.
      const embedAll = async (texts: string[]) => {
        const out: Float32Array[] = [];
        for (let i = 0; i < texts.length; i += batchSize) {
          if (i > 0) input.heartbeat?.({ after, computed });
          out.push(...(await embeddings.embed({ texts: texts.slice(i, i + batchSize), kind: 'passage' })));
        }
        return out;
      };
      const fresh = unique.filter((p) => p.needs_vector);
      const passageVectors = await embedAll(fresh.map(passageEmbeddingText));
      await this.repo.insertEmbeddings(db, { sourceId: input.sourceId, model, rows: fresh.map((p, i) => ({ contentHash: p.content_hash, vector: passageVectors[i]! })) });
      if (fresh.length) input.heartbeat?.({ after, computed });
      if (sentences) {
        const own = unique.map((p) => sentenceEmbeddingTexts(p));
        const vectors = await embedAll(own.flat());
        let at = 0;
        const late = unique.map((p, i) => ({ contentHash: p.content_hash, sentences: vectors.slice(at, (at += own[i]!.length)) }));
        sentenceVectors += vectors.length;
        const filled = await this.repo.setSentenceVectors(db, { sourceId: input.sourceId, model, rows: late });
        // A stored vector of other dimensions keeps NULL (listed again by every backfill): say so once per batch.
        if (filled < late.length) this.deps.log?.warn({ sourceId: input.sourceId, model, expected: late.length, filled }, 'Sentence vectors not stored for some passages (dimensions differ from their stored vector)');
      }
      computed += fresh.length;
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
    this.deps.log?.info({ sourceId: input.sourceId, version: input.version, embedded, computed, sentenceVectors, pruned, model }, 'Knowledge source embedded');
    return { status: 'done', embeddedPassages: embedded, computed };
  }
}
