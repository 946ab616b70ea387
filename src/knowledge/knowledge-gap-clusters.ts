import { canonicalTerm, contentTerms } from '../platform/text';

/**
 * Grouping customer questions by meaning for the knowledge-gap report (docs/decisions/knowledge-gaps-clustering.md).
 * Pure: unit vectors in, groups out; the service loads the questions and their vectors.
 */

/**
 * Cosine with a group's centre at or above which a question joins it. Embeddings: after the common
 * direction is taken out (`centred`), multilingual-e5-small's paraphrases (across languages too) join
 * at 0.25 to 0.35 on the test fixture, and 0.3 is its middle. Lexical vectors (EMBEDDINGS=off): shared
 * content words.
 */
export const GAP_SIMILARITY = { embeddings: 0.3, lexical: 0.4 } as const;

/** Dimensions of the lexical vector (hashed content words). */
const LEXICAL_DIMS = 1024;

/**
 * A question's lexical vector for EMBEDDINGS=off: its stemmed content words (German, French and Spanish
 * customer-service words mapped to the English one) hashed into LEXICAL_DIMS buckets, unit length. It
 * groups questions that share words, not meaning: a paraphrase with other words stays apart.
 */
export function lexicalVector(text: string): Float32Array {
  const v = new Float32Array(LEXICAL_DIMS);
  for (const term of contentTerms(text)) {
    const t = canonicalTerm(term);
    let h = 2166136261;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
    v[(h >>> 0) % LEXICAL_DIMS]! += 1;
  }
  return normalize(v);
}

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export function dot(a: Float32Array, b: Float32Array, bOffset = 0): number {
  // Four running sums: the loop the clustering spends its time in (n × groups × dims).
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const j = bOffset + i;
    s0 += a[i]! * b[j]!;
    s1 += a[i + 1]! * b[j + 1]!;
    s2 += a[i + 2]! * b[j + 2]!;
    s3 += a[i + 3]! * b[j + 3]!;
  }
  for (; i < n; i++) s0 += a[i]! * b[bOffset + i]!;
  return s0 + s1 + s2 + s3;
}

export interface Clustering {
  /** Index (into the input) of each group's first member, in the order the groups were opened. */
  leaders: number[];
  /** For each input, the position in `leaders` of its group. */
  groupOf: Int32Array;
  /** The groups' centres (unit vectors laid end to end, `dims` each). */
  centres: Float32Array;
  dims: number;
}

/**
 * Online clustering with running-mean centres and a reassignment pass, over unit vectors given in a
 * deterministic order (the service passes distinct question texts by first appearance: time, then run id):
 * 1. in order, a vector joins the most similar centre when the cosine reaches `threshold` (the centre
 *    moves to the normalised mean of its members), else it opens a group;
 * 2. every vector then joins the centre it is most similar to.
 * The same questions in the same order give the same groups; a day's new questions mostly join the groups
 * the earlier ones opened. O(n × groups × dims).
 */
export function clusterVectors(vectors: readonly Float32Array[], threshold: number): Clustering {
  const n = vectors.length;
  const groupOf = new Int32Array(n).fill(-1);
  const dims = vectors[0]?.length ?? 0;
  const leaders: number[] = [];
  let sums: Float32Array<ArrayBuffer> = new Float32Array(dims * 64);
  let centres: Float32Array<ArrayBuffer> = new Float32Array(dims * 64);
  for (let i = 0; i < n; i++) {
    const v = vectors[i]!;
    const near = nearestLeader(v, centres, leaders.length, dims);
    let g = near.group;
    if (g < 0 || near.cosine < threshold) {
      if ((leaders.length + 1) * dims > centres.length) {
        sums = grow(sums);
        centres = grow(centres);
      }
      g = leaders.length;
      leaders.push(i);
    }
    const at = g * dims;
    let norm = 0;
    for (let k = 0; k < dims; k++) {
      sums[at + k]! += v[k]!;
      norm += sums[at + k]! * sums[at + k]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < dims; k++) centres[at + k] = sums[at + k]! / norm;
  }
  for (let i = 0; i < n; i++) groupOf[i] = nearestLeader(vectors[i]!, centres, leaders.length, dims).group;
  return { leaders, groupOf, centres: centres.subarray(0, leaders.length * dims), dims };
}

function grow(a: Float32Array): Float32Array<ArrayBuffer> {
  const out = new Float32Array(a.length * 2);
  out.set(a);
  return out;
}

/**
 * Vectors with a reference direction taken out (`mean`: the mean vector of a fixed set of ordinary
 * customer questions), then unit length again. Embedding models put every question in a narrow cone
 * (e5: cosines of 0.75 and more between unrelated questions); without the common part, cosines spread
 * out and one threshold separates topics.
 */
export function centred(vectors: readonly Float32Array[], mean: Float32Array): Float32Array[] {
  return vectors.map((v) => {
    const out = new Float32Array(v.length);
    for (let k = 0; k < v.length; k++) out[k] = v[k]! - (mean[k] ?? 0);
    return normalize(out);
  });
}

/** The mean of vectors (not normalised). */
export function meanVector(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0]?.length ?? 0);
  for (const v of vectors) for (let k = 0; k < out.length; k++) out[k]! += v[k]!;
  for (let k = 0; k < out.length; k++) out[k]! /= Math.max(1, vectors.length);
  return out;
}

/** The leader most similar to `v` (first on ties) and its cosine. */
export function nearestLeader(v: Float32Array, leaderVecs: Float32Array, count: number, dims: number): { group: number; cosine: number } {
  let best = -1;
  let bestCos = -Infinity;
  for (let g = 0; g < count; g++) {
    const c = dot(v, leaderVecs, g * dims);
    if (c > bestCos) {
      bestCos = c;
      best = g;
    }
  }
  return { group: best, cosine: bestCos };
}

