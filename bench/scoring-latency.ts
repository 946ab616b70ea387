/**
 * Query latency of hybrid retrieval at 5,000 and 100,000 passages, and what the fused score's features
 * cost in it: synthetic passages (words drawn from a Zipf vocabulary) in one knowledge base, vectors from
 * a bag-of-words stand-in model (a fixed random vector per word, summed), queries drawn from passages.
 * For each size it prints one JSON line: end-to-end `retrieve` p50/p95 (the service as it is; the query's
 * embedding is the stand-in's, so the real model's few ms are not in it) and, on the same candidate sets,
 * the scoring step (features + logistic) of the current code against the four-feature scoring of before
 * issue 23's second pass, so both are compared in the same run.
 *   npx tsx bench/scoring-latency.ts          BENCH_SIZES=5000,100000  BENCH_QUERIES=200  BENCH_SENTENCES=false (no sentence read)
 */
import { embeddingsConfig, startFakeEmbeddingsServer } from '../test/support/embeddings';
import { apiClient } from '../test/support/http';
import { startTestStack } from '../test/support/stack';
import { createDevServerEnv } from '../test/support/temporal';
import { DEFAULT_FUSION, fuseScores, type FusionInput } from '../src/knowledge/index/scoring';
import { machineInfo, percentile, round } from './support';

const SIZES = (process.env.BENCH_SIZES ?? '5000,100000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const DIMS = 384;
const VOCAB = 5000;
const RECORDS_PER_SOURCE = 1000;

/** A fixed pseudo-random generator (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(23);
const words = Array.from({ length: VOCAB }, (_, i) => `w${i.toString(36)}${'abcdefghij'[i % 10]}`);
const wordVector = new Map(words.map((w) => [w, Float32Array.from({ length: DIMS }, () => rand() - 0.5)]));
/** Zipf-distributed word index. */
const zipf = () => Math.min(VOCAB - 1, Math.floor(Math.exp(rand() * Math.log(VOCAB)) - 1));
const passage = (n: number) => Array.from({ length: n }, () => words[zipf()]!).join(' ');

function vectorOf(text: string): number[] {
  const v = new Float32Array(DIMS);
  for (const w of text.split(/\W+/)) {
    const wv = wordVector.get(w);
    if (wv) for (let i = 0; i < DIMS; i++) v[i]! += wv[i]!;
  }
  // A shared component, as real models have (their cosines sit in 0.7–0.95, not around 0).
  for (let i = 0; i < DIMS; i++) v[i]! += i % 7 === 0 ? 3 : 0;
  return [...v];
}

/** The scoring of before (four features read against the candidate set): the comparison's baseline. */
function legacyScores(cands: readonly FusionInput[]): number[] {
  const w = [23.161, -3.158, 29.529, 25.179];
  const r = cands.map((c) => c.cos + 0.2 * c.x);
  const sorted = [...r].sort((a, b) => b - a);
  const best = sorted[0] ?? 0;
  const bg = sorted.slice(1, 10);
  const background = bg.length ? bg.reduce((a, b) => a + b, 0) / bg.length : best - 0.1;
  return cands.map((c, i) => {
    const next = r[i] === best ? (sorted[1] ?? best - 0.1) : best;
    const f = [c.cos, c.x, Math.max(-0.1, Math.min(0.1, r[i]! - next)), r[i]! - background];
    return 1 / (1 + Math.exp(-f.reduce((z, v, k) => z + w[k]! * v, -21.116)));
  });
}

async function main() {
  const fake = await startFakeEmbeddingsServer((t) => vectorOf(t));
  const env = await createDevServerEnv();
  const stack = await startTestStack({ label: 'scoring-latency', env, config: embeddingsConfig(fake.url, { batchSize: 256, queryTimeoutMs: 60_000, sentences: process.env.BENCH_SENTENCES !== 'false' }) });
  try {
    const { accountId, apiKey } = await stack.newAccount('bench');
    const call = apiClient(stack.baseUrl, apiKey);
    const base = (await call('POST', '/v1/knowledge_bases', { name: 'synthetic' })).body.id as string;
    let have = 0;
    const texts: string[] = [];
    for (const size of SIZES) {
      const t0 = performance.now();
      const ids: string[] = [];
      while (have < size) {
        const n = Math.min(RECORDS_PER_SOURCE, size - have);
        const records = Array.from({ length: n }, (_, i) => {
          const text = passage(40 + Math.floor(rand() * 60));
          texts.push(text);
          return { title: `p${have + i}`, content: text };
        });
        const res = await call('POST', `/v1/knowledge_bases/${base}/sources`, { type: 'record', records, refresh: 'manual' });
        if (res.status !== 202) throw new Error(`add source: ${res.status} ${JSON.stringify(res.body)}`);
        ids.push(res.body.id);
        have += n;
      }
      for (const id of ids) {
        for (;;) {
          const s = (await call('GET', `/v1/knowledge_bases/${base}/sources/${id}`)).body;
          if (s.status === 'failed') throw new Error(`source failed: ${JSON.stringify(s.error)}`);
          if (s.status === 'ready' && s.embedded_passages === s.passage_count) break;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      const ingestSeconds = (performance.now() - t0) / 1000;
      const e2e: number[] = [];
      const current: number[] = [];
      const before: number[] = [];
      let candidates = 0;
      for (let q = 0; q < QUERIES + 10; q++) {
        const words5 = texts[Math.floor(rand() * texts.length)]!.split(' ');
        const start = Math.floor(rand() * Math.max(1, words5.length - 6));
        const query = words5.slice(start, start + 3 + Math.floor(rand() * 5)).join(' ');
        const t = performance.now();
        await stack.services.knowledgeRetrieval.retrieve({ accountId, knowledgeBaseIds: [base], query, topK: 10 });
        const ms = performance.now() - t;
        // The candidate set of the same query (explain fetches every candidate's row: not timed).
        const r = await stack.services.knowledgeRetrieval.retrieve({ accountId, knowledgeBaseIds: [base], query, topK: 10, explain: true });
        if (q < 10) continue; // warm-up
        e2e.push(ms);
        const cands = (r.candidates ?? []).filter((c) => Number.isFinite(c.cos)).map((c) => ({ x: c.x, cos: c.cos, sentCos: c.sentCos ?? undefined }));
        candidates += cands.length;
        const reps = 20;
        let s = performance.now();
        for (let k = 0; k < reps; k++) fuseScores(cands, DEFAULT_FUSION);
        current.push((performance.now() - s) / reps);
        s = performance.now();
        for (let k = 0; k < reps; k++) legacyScores(cands);
        before.push((performance.now() - s) / reps);
      }
      const stats = (xs: number[], digits = 1) => {
        const sorted = [...xs].sort((a, b) => a - b);
        return { p50: round(percentile(sorted, 50), digits), p95: round(percentile(sorted, 95), digits) };
      };
      console.log(
        JSON.stringify({
          bench: 'scoring-latency',
          passages: have,
          queries: QUERIES,
          ingest_seconds: round(ingestSeconds, 0),
          mean_candidates: round(candidates / QUERIES, 1),
          retrieve_ms: stats(e2e),
          scoring_ms: { current: stats(current, 3), before: stats(before, 3) },
          machine: machineInfo(),
        }),
      );
    }
  } finally {
    await stack.close();
    await env.teardown();
    await fake.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
