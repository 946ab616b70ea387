import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import { dot, rankingEvidence, SENTENCE_DEPTH } from './index/scoring';
import { decodeVectors, type VectorIndexRepo } from './index/vector-index.repo';

/**
 * Sets `sentCos`, the query's cosine with the passage's best sentence (and `sentenceCosines`, each of its
 * sentences' in stored order), on the SENTENCE_DEPTH candidates
 * best by the ranking evidence r (distinct contents; their sentence vectors read in one statement). A
 * passage without sentence vectors (one sentence, not computed yet, or of other dimensions) keeps it
 * undefined, and so does every candidate when the read fails (logged: the query goes on with passage
 * cosines).
 */
export async function addSentenceCosines(
  deps: { db: Kysely<DB>; vectors: VectorIndexRepo; log?: Logger },
  q: Float32Array,
  cands: { sourceId: string; contentHash?: Buffer; x: number; cos: number; sentCos?: number; sentenceCosines?: number[] }[],
  model: string,
): Promise<void> {
  const keyOf = (sourceId: string, hash: Buffer) => `${sourceId}:${hash.toString('hex')}`;
  const ranked = cands.filter((c) => c.contentHash).sort((a, b) => rankingEvidence(b) - rankingEvidence(a));
  const keys = new Map<string, { sourceId: string; contentHash: Buffer }>();
  for (const c of ranked) {
    if (keys.size >= SENTENCE_DEPTH) break;
    keys.set(keyOf(c.sourceId, c.contentHash!), { sourceId: c.sourceId, contentHash: c.contentHash! });
  }
  if (keys.size === 0) return;
  try {
    const rows = await deps.vectors.getSentenceVectors(deps.db, { model, keys: [...keys.values()] });
    const each = new Map<string, number[]>();
    for (const row of rows) {
      // A row of other dimensions, or bytes that are no whole number of vectors, is skipped on its own.
      if (!row.sentence_vecs?.byteLength || row.dims !== q.length || row.sentence_vecs.byteLength % (row.dims * 4) !== 0) continue;
      each.set(keyOf(row.source_id, row.content_hash), decodeVectors(row.sentence_vecs, row.dims).map((v) => dot(q, v)));
    }
    for (const c of ranked) {
      const cosines = keys.has(keyOf(c.sourceId, c.contentHash!)) ? each.get(keyOf(c.sourceId, c.contentHash!)) : undefined;
      c.sentCos = cosines ? Math.max(...cosines) : undefined;
      // Each sentence's cosine too: the planner quotes the sentences nearest the question.
      c.sentenceCosines = cosines;
    }
  } catch (err) {
    deps.log?.warn({ err: (err as Error).message }, 'Sentence vectors could not be read; scoring with passage cosines');
  }
}
