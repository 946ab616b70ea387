/**
 * npm run bench:retrieval — SciFact (BEIR) through the API: ingest the corpus as record sources, run the
 * 300 test queries through POST /v1/knowledge_bases/{id}/query, print nDCG@10, Recall@100, MRR@10,
 * query latency and ingestion rate as one JSON line; then grow the base to 100,000 passages (replicas of
 * the corpus with distinct urls) and print latency again. Starts its own stack: a Temporal dev server,
 * a fresh Postgres schema, the app on a loopback port and a worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { apiClient } from '../test/support/http';
import { startTestStack } from '../test/support/stack';
import { createDevServerEnv } from '../test/support/temporal';
import { machineInfo, percentile, round } from './support';

const DATA = path.resolve(__dirname, '../../shared/data/scifact');
const RECORDS_PER_SOURCE = 1000;
const TARGET_PASSAGES = Number(process.env.BENCH_PASSAGES ?? 100_000);

type Doc = { _id: string; title: string; text: string };
const readJsonl = <T>(file: string): T[] =>
  fs.readFileSync(path.join(DATA, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);


async function main() {
  const corpus = readJsonl<Doc>('corpus.jsonl');
  const queries = new Map(readJsonl<{ _id: string; text: string }>('queries.jsonl').map((q) => [q._id, q.text]));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(DATA, 'qrels/test.tsv'), 'utf8').split('\n').slice(1)) {
    const [qid, did, score] = line.trim().split('\t');
    if (!qid || !did) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(did, Number(score));
  }
  const testQueries = [...qrels.keys()].filter((q) => queries.has(q));

  const env = await createDevServerEnv();
  const stack = await startTestStack({ label: 'retrieval-bench', env });
  try {
    const { apiKey, accountId } = await stack.newAccount('bench');
    const call = apiClient(stack.baseUrl, apiKey);
    const kb = (await call('POST', '/v1/knowledge_bases', { name: 'SciFact' })).body.id as string;

    const ingest = async (docs: Doc[], replica: number) => {
      const started = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < docs.length; i += RECORDS_PER_SOURCE) {
        const records = docs.slice(i, i + RECORDS_PER_SOURCE).map((d) => ({
          title: d.title || d._id,
          content: d.text || d.title,
          url: `scifact://doc/${d._id}${replica ? `?replica=${replica}` : ''}`,
        }));
        const res = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records, refresh: 'manual', metadata: { replica: String(replica) } });
        if (res.status !== 202) throw new Error(`add source: ${res.status} ${JSON.stringify(res.body)}`);
        ids.push(res.body.id);
      }
      let passages = 0;
      for (const id of ids) {
        for (;;) {
          const s = (await call('GET', `/v1/knowledge_bases/${kb}/sources/${id}`)).body;
          if (s.status === 'ready') {
            passages += s.passage_count;
            break;
          }
          if (s.status === 'failed') throw new Error(`source failed: ${JSON.stringify(s.error)}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return { passages, seconds: (performance.now() - started) / 1000 };
    };

    const runQueries = async (topK: number) => {
      const latencies: number[] = [];
      const rankings = new Map<string, { url: string; score: number }[]>();
      for (const qid of testQueries) {
        const t0 = performance.now();
        const res = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: queries.get(qid)!, top_k: topK });
        latencies.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`query: ${res.status} ${JSON.stringify(res.body)}`);
        rankings.set(qid, res.body.results);
      }
      latencies.sort((a, b) => a - b);
      return { rankings, p50: round(percentile(latencies, 50), 1), p95: round(percentile(latencies, 95), 1) };
    };

    const docIds = (results: { url: string | null }[]) => {
      const seen = new Set<string>();
      const out: string[] = [];
      for (const r of results) {
        const id = /^scifact:\/\/doc\/([^?#]+)/.exec(r.url ?? '')?.[1];
        if (id && !seen.has(id)) {
          seen.add(id);
          out.push(id);
        }
      }
      return out;
    };

    // Phase 1: SciFact as it is.
    const ingested = await ingest(corpus, 0);
    // Quality from top_k 50 (deduplicated to documents); latency at top_k 10, after a warm-up pass.
    const { rankings } = await runQueries(50);
    const { p50, p95 } = await runQueries(10);
    let ndcg = 0;
    let mrr = 0;
    let recall = 0;
    const bins = Array.from({ length: 10 }, () => ({ n: 0, relevant: 0 }));
    for (const qid of testQueries) {
      const rel = qrels.get(qid)!;
      const ranked = docIds(rankings.get(qid)!);
      let dcg = 0;
      ranked.slice(0, 10).forEach((d, i) => (dcg += (2 ** (rel.get(d) ?? 0) - 1) / Math.log2(i + 2)));
      const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10).reduce((a, g, i) => a + (2 ** g - 1) / Math.log2(i + 2), 0);
      ndcg += ideal ? dcg / ideal : 0;
      const first = ranked.slice(0, 10).findIndex((d) => (rel.get(d) ?? 0) > 0);
      mrr += first >= 0 ? 1 / (first + 1) : 0;
      // Recall@100 needs more candidates than the API's top_k maximum (50): asked of the same service.
      const deep = await stack.services.knowledgeRetrieval.retrieve({ accountId, knowledgeBaseIds: [kb], query: queries.get(qid)!, topK: 100 });
      const deepIds = new Set(docIds(deep.results));
      recall += [...rel.keys()].filter((d) => deepIds.has(d)).length / rel.size;
      for (const r of rankings.get(qid)!.slice(0, 10)) {
        const id = docIds([r])[0]!;
        const bin = bins[Math.min(9, Math.floor(r.score * 10))]!;
        bin.n++;
        if ((rel.get(id) ?? 0) > 0) bin.relevant++;
      }
    }
    const n = testQueries.length;
    const machine = machineInfo();
    console.log(
      JSON.stringify({
        bench: 'retrieval',
        dataset: 'scifact',
        queries: n,
        passages: ingested.passages,
        ndcg_at_10: round(ndcg / n, 4),
        recall_at_100: round(recall / n, 4),
        mrr_at_10: round(mrr / n, 4),
        query_latency_ms: { p50, p95, top_k: 10 },
        ingestion_passages_per_s: round(ingested.passages / ingested.seconds, 1),
        calibration: bins.map((b, i) => ({ score: `${i / 10}-${(i + 1) / 10}`, results: b.n, relevant_rate: b.n ? round(b.relevant / b.n, 3) : null })),
        machine,
      }),
    );

    // Phase 2: replicas with distinct urls up to TARGET_PASSAGES.
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
    await runQueries(10);
    const scaled = await runQueries(10);
    console.log(
      JSON.stringify({
        bench: 'retrieval',
        dataset: 'scifact-replicated',
        queries: n,
        passages: total,
        query_latency_ms: { p50: scaled.p50, p95: scaled.p95, top_k: 10 },
        ingestion_passages_per_s: round(scalePassages / Math.max(scaleSeconds, 1e-9), 1),
        machine,
      }),
    );
  } finally {
    await stack.close();
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
