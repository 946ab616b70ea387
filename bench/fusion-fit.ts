/**
 * (Superseded for the shipped score by `npm run bench:calibration`, bench/calibration/: the fused score is
 * now a logistic over four features fitted across five sets. This SciFact-only study of the ranking weight
 * is kept for BENCH_FIT=1 in the retrieval bench; its FUSION_* output is not the current model's format.)
 * Tuning the hybrid fusion on SciFact (BENCH_FIT=1 in the retrieval bench): for every test query, the
 * candidates of both sides (lexical top 100 with their normalised BM25 x; dense top 100 by exact cosine),
 * labelled by the qrels. Then (1) the ranking weight w of `x + w·cos` that maximises nDCG@10, with 2-fold
 * cross-validation over the queries, and (2) a logistic fit of P(relevant | x + w·cos) for the calibrated
 * score. Uses the index repos directly, on the bench's database.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema';
import type { EmbeddingsPort } from '../src/knowledge/index/embeddings.client';
import { LexicalIndexRepo } from '../src/knowledge/index/lexical-index.repo';
import { dot, lexicalX, POSTINGS_BUDGET } from '../src/knowledge/index/scoring';
import { decodeVector, encodeVector, VectorIndexRepo } from '../src/knowledge/index/vector-index.repo';
import { round } from './support';
import { fitLogisticRegression } from './logistic';

/** x: the lexical side's normalised BM25 (0 when only the dense side proposed it); xExact: its real BM25 then. */
export interface Candidate { doc: string; x: number; xExact?: number; cos: number; rel: number }

const docOf = (url: string | null) => /^scifact:\/\/doc\/([^?#]+)/.exec(url ?? '')?.[1] ?? '';

export async function collectCandidates(input: {
  db: Kysely<DB>; embeddings: EmbeddingsPort; accountId: string; kb: string;
  queries: { id: string; text: string }[]; qrels: Map<string, Map<string, number>>;
}): Promise<Map<string, Candidate[]>> {
  const lexical = new LexicalIndexRepo();
  const vectors = new VectorIndexRepo();
  const scope = (await lexical.listScopeSources(input.db, { accountId: input.accountId, knowledgeBaseIds: [input.kb] })).filter((s) => s.active_version !== null);
  const n = scope.reduce((a, s) => a + s.passage_count, 0);
  const version = new Map(scope.map((s) => [s.id, s.active_version!]));
  const out = new Map<string, Candidate[]>();
  for (const q of input.queries) {
    const [qv] = await input.embeddings.embed({ texts: [q.text], kind: 'query' });
    const hits = await lexical.searchPostings(input.db, { query: q.text, scope, n, topK: 100, budget: POSTINGS_BUDGET });
    const vecs = await vectors.getVectors(input.db, { model: input.embeddings.model, keys: hits.map((h) => ({ sourceId: h.source_id, contentHash: h.content_hash! })) });
    const cosOf = new Map(vecs.map((v) => [`${v.source_id}:${v.content_hash.toString('hex')}`, dot(qv!, decodeVector(v.vec))]));
    const cands = new Map<string, Candidate>();
    const rel = input.qrels.get(q.id)!;
    for (const h of hits) {
      const doc = docOf(h.url);
      const cos = cosOf.get(`${h.source_id}:${h.content_hash!.toString('hex')}`) ?? 0;
      const x = lexicalX(h.s, h.sum_idf);
      cands.set(`${h.source_id}:${h.ordinal}`, { doc, x, xExact: x, cos, rel: rel.get(doc) ?? 0 });
    }
    const dense = (await vectors.scanNearest(input.db, { model: input.embeddings.model, scope: scope.map((s) => ({ id: s.id, version: s.active_version! })), bits: encodeVector(qv!).bits, limit: 400 }))
      .map((d) => ({ d, cos: dot(qv!, decodeVector(d.vec)) }))
      .sort((a, b) => b.cos - a.cos)
      .slice(0, 100)
      .filter(({ d }) => !cands.has(`${d.source_id}:${d.ordinal}`));
    const rows = await lexical.getPassages(input.db, dense.map(({ d }) => ({ sourceId: d.source_id, version: version.get(d.source_id)!, ordinal: d.ordinal })));
    const bm25 = await lexical.scorePassages(input.db, { query: q.text, scope, n, keys: dense.map(({ d }) => ({ sourceId: d.source_id, ordinal: d.ordinal })) });
    const xOf = new Map(bm25.map((r) => [`${r.source_id}:${r.ordinal}`, lexicalX(r.s, r.sum_idf)]));
    const urlOf = new Map(rows.map((r) => [`${r.source_id}:${r.ordinal}`, r.url]));
    for (const { d, cos } of dense) {
      const doc = docOf(urlOf.get(`${d.source_id}:${d.ordinal}`) ?? null);
      cands.set(`${d.source_id}:${d.ordinal}`, { doc, x: 0, xExact: xOf.get(`${d.source_id}:${d.ordinal}`) ?? 0, cos, rel: rel.get(doc) ?? 0 });
    }
    out.set(q.id, [...cands.values()]);
  }
  return out;
}

export function ndcgAt10(ranked: Candidate[], rel: Map<string, number>): number {
  const seen = new Set<string>();
  const docs: string[] = [];
  for (const c of ranked) if (!seen.has(c.doc)) { seen.add(c.doc); docs.push(c.doc); }
  let dcg = 0;
  docs.slice(0, 10).forEach((d, i) => (dcg += (2 ** (rel.get(d) ?? 0) - 1) / Math.log2(i + 2)));
  const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10).reduce((a, g, i) => a + (2 ** g - 1) / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}

function meanNdcg(ids: string[], cands: Map<string, Candidate[]>, qrels: Map<string, Map<string, number>>, w: number) {
  return ids.reduce((a, id) => a + ndcgAt10([...cands.get(id)!].sort((p, q) => q.x + w * q.cos - (p.x + w * p.cos)), qrels.get(id)!), 0) / ids.length;
}

/** Logistic regression of y on one feature z: P = σ(a·z + b). */
function fitLogistic(zs: number[], ys: number[]): { a: number; b: number } {
  const [a, b] = fitLogisticRegression(zs.map((z) => [z, 1]), ys, { maxIterations: 50 });
  return { a: a!, b: b! };
}

/** The fit with dense-only candidates scored by their real BM25 instead of 0. */
export function withExactLexical(cands: Map<string, Candidate[]>): Map<string, Candidate[]> {
  return new Map([...cands].map(([id, cs]) => [id, cs.map((c) => ({ ...c, x: c.xExact ?? c.x }))]));
}

export function fitFusion(cands: Map<string, Candidate[]>, qrels: Map<string, Map<string, number>>) {
  const ids = [...cands.keys()];
  const grid = Array.from({ length: 41 }, (_, i) => i * 0.25);
  const best = (subset: string[]) => grid.reduce((acc, w) => { const v = meanNdcg(subset, cands, qrels, w); return v > acc.v ? { w, v } : acc; }, { w: 0, v: -1 });
  const folds = [ids.filter((_, i) => i % 2 === 0), ids.filter((_, i) => i % 2 === 1)];
  const cv = folds.map((train, k) => {
    const test = folds[1 - k]!;
    const { w } = best(train);
    return { w, test_ndcg_at_10: round(meanNdcg(test, cands, qrels, w), 4) };
  });
  const all = best(ids);
  const zs: number[] = [];
  const ys: number[] = [];
  for (const id of ids) for (const c of cands.get(id)!) { zs.push(c.x + all.w * c.cos); ys.push(c.rel > 0 ? 1 : 0); }
  const { a, b } = fitLogistic(zs, ys);
  return {
    weight_dense: all.w,
    ndcg_at_10_all: round(all.v, 4),
    ndcg_lexical_only: round(meanNdcg(ids, cands, qrels, 0), 4),
    ndcg_dense_only: round(meanNdcg(ids, cands, qrels, 1000), 4),
    cross_validated: cv,
    logistic: { FUSION_LEXICAL: round(a, 3), FUSION_DENSE: round(a * all.w, 3), FUSION_BIAS: round(b, 3) },
    samples: zs.length,
  };
}
