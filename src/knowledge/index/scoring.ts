/**
 * Lexical relevance: Okapi BM25 with Lucene's idf, and the calibration that maps it to a score in [0, 1].
 * The SQL in KnowledgeRetrievalService computes the same formula in Postgres; this file holds the
 * constants and the JS twin used for api-source results (so both rank on one scale).
 */
export const BM25_K1 = 0.9;
export const BM25_B = 0.4;

/**
 * Postings a query reads at most (summed over its terms). Terms are served rarest first: a term whose
 * list fits in its share is read whole; a longer (common, low-idf) list is read from its high-impact head
 * only. Below this many postings in scope the ranking is exact BM25.
 */
export const POSTINGS_BUDGET = 6000;

/**
 * Water-filling: how many postings of each term to read, rarest terms first, within `budget`. The query of
 * KnowledgeRetrievalService.searchIndex does the same in SQL (ties between equal dfs go to query order).
 */
export function allocatePostings(dfs: number[], budget = POSTINGS_BUDGET): number[] {
  const order = dfs.map((df, i) => ({ df, i })).sort((a, b) => a.df - b.df);
  const out = new Array<number>(dfs.length).fill(0);
  let remaining = budget;
  order.forEach(({ df, i }, k) => {
    const share = Math.floor(remaining / (order.length - k));
    out[i] = Math.min(df, Math.max(share, 1));
    remaining -= out[i]!;
  });
  return out;
}

/**
 * Calibration: x = bm25 / bm25_max, where bm25_max = (k1 + 1) · Σ idf(t) over the query terms (the
 * score of a passage that contains every query term with saturated frequency). Terms absent from the
 * base keep their (maximal) idf in the denominator, so a question about something the base does not
 * cover cannot reach a high x. The score is then a logistic fit of P(relevant | x) on judged data
 * (SciFact, see docs/decisions.md): score = 1 / (1 + e^-(A·x + C)).
 */
export const CALIBRATION_A = 12.0;
export const CALIBRATION_C = -6.9;

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export function bm25Term(idfWeight: number, tf: number, len: number, avgLen: number): number {
  return (idfWeight * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * len) / avgLen));
}

/** The normalised lexical score x in [0, 1] the calibrations take. */
export function lexicalX(bm25: number, sumIdf: number): number {
  if (!(sumIdf > 0) || !(bm25 > 0)) return 0;
  return Math.min(1, bm25 / ((BM25_K1 + 1) * sumIdf));
}

const logistic = (z: number) => Math.round((1 / (1 + Math.exp(-z))) * 10_000) / 10_000;

export function calibrate(bm25: number, sumIdf: number): number {
  const x = lexicalX(bm25, sumIdf);
  return x > 0 ? logistic(CALIBRATION_A * x + CALIBRATION_C) : 0;
}

/** One hybrid candidate as the fusion reads it: normalised BM25 (lexicalX) and the cosine with the query. */
export interface FusionInput {
  x: number;
  cos: number;
}

/** A logistic model over FUSION_FEATURES: score = σ(bias + Σ weights[i] · feature[i]). */
export interface FusionModel {
  weights: readonly number[];
  bias: number;
}

/** PLACEHOLDER: replaced by the fitted model below. */
export const FUSION_FEATURES = ['cos', 'x', 'cos_margin'] as const;

export const DEFAULT_FUSION: FusionModel = { weights: [73.14, 8.87, 0], bias: -68.49 };

/** The features of every candidate, each read against the whole candidate set (FUSION_FEATURES order). */
export function fusionFeatures(cands: readonly FusionInput[]): number[][] {
  let best = -Infinity;
  let second = -Infinity;
  for (const c of cands) {
    if (c.cos > best) [second, best] = [best, c.cos];
    else if (c.cos > second) second = c.cos;
  }
  return cands.map((c) => {
    const next = c.cos === best ? second : best;
    const margin = Number.isFinite(next) ? Math.max(-0.1, Math.min(0.1, c.cos - next)) : 0.1;
    return [c.cos, c.x, margin];
  });
}

/** The fused, calibrated score of every candidate: P(this passage answers the question). */
export function fuseScores(cands: readonly FusionInput[], model: FusionModel = DEFAULT_FUSION): number[] {
  return fusionFeatures(cands).map((f) => logistic(f.reduce((z, v, i) => z + (model.weights[i] ?? 0) * v, model.bias)));
}

/** Dot product (the cosine of two unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A window of the passage (about `max` characters) with the most query words, on word boundaries. */
export function makeSnippet(content: string, query: string, max = 320): string {
  const text = content.replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])].map((w) => w.slice(0, 5));
  const lower = text.toLowerCase();
  let best = 0;
  let bestHits = -1;
  for (let start = 0; start < text.length - max / 2; start += Math.max(20, Math.floor(max / 4))) {
    const window = lower.slice(start, start + max);
    const hits = words.reduce((n, w) => n + (window.includes(w) ? 1 : 0), 0);
    if (hits > bestHits) {
      bestHits = hits;
      best = start;
    }
  }
  let from = best;
  if (from > 0) {
    const space = text.indexOf(' ', from);
    from = space >= 0 && space - from < 30 ? space + 1 : from;
  }
  let to = Math.min(text.length, from + max);
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    if (space > from + max / 2) to = space;
  }
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}
