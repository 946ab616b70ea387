/**
 * Collects the calibration bench's raw material through the real service: each set is ingested as record
 * sources of its own knowledge base (the sync workflow chunks and embeds it, the local model behind the
 * bench's embedding cache), then every question is asked with `explain` and the hybrid candidates (their
 * normalised BM25 x and cosine, which side proposed them, the document they come from) are written to
 * data/calibration/<set>.json. The fit and the figures (bench/calibration.bench.ts) read those files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config/env';
import { OpenAiEmbeddingsClient } from '../../src/knowledge/index/embeddings.client';
import { startEmbeddingsServer } from '../../src/knowledge/index/embeddings-server';
import { freePort } from '../../src/platform/free-port';
import { embeddingsConfig } from '../../test/support/embeddings';
import { apiClient, type ApiClient } from '../../test/support/http';
import { startTestStack } from '../../test/support/stack';
import { createDevServerEnv } from '../../test/support/temporal';
import { EmbeddingsCache, serveCachedEmbeddings } from '../embeddings-cache';
import type { BenchSet } from './sets';

export const CALIBRATION_DIR = path.resolve(__dirname, '../../data/calibration');

export interface CollectedCandidate { doc: string; x: number; cos: number; lexical: boolean; dense: boolean; sentCos?: number; otherLanguage?: boolean }
/** `passages`: the passages in the question's scope (its base), which the fusion's `small_base` reads. */
export interface CollectedQuery { id: string; text: string; answerable: boolean; rel: Record<string, number>; group?: string; passages?: number; cands: CollectedCandidate[] }
export interface CollectedSet { set: string; subsample: string; documents: number; passages: number; queries: CollectedQuery[] }

/** The url each bench document is ingested under (SciFact's as bench/embed-corpus.ts embeds it, for the cache). */
export const docUrl = (set: string, id: string) => (set === 'scifact' ? `https://scifact.invalid/doc/${id}` : `https://bench.invalid/${set}/${encodeURIComponent(id)}`);
/** The bench document id a passage's url names (docUrl's inverse; '' for any other url). */
export const docOfUrl = (url: string | null | undefined) => {
  const m = /^https:\/\/(?:scifact\.invalid\/doc|bench\.invalid\/[^/]+)\/([^?#]+)/.exec(url ?? '');
  return m ? decodeURIComponent(m[1]!) : '';
};

/**
 * The service as the benches drive it: the local model (`threads`) behind the bench's embedding cache
 * (`cacheQueries`: question vectors too), a Temporal dev server and a test stack with embeddings on;
 * `close` stops them all.
 */
export async function startBenchStack(opts: { label: string; threads: number; cacheQueries: boolean; queryTimeoutMs: number; sentences?: boolean }) {
  const model = loadConfig({}).embeddings.model;
  const server = await startEmbeddingsServer({ port: await freePort(), threads: opts.threads });
  const upstream = new OpenAiEmbeddingsClient({ url: server.url, model, inputType: true, timeoutMs: 600_000 });
  const cache = new EmbeddingsCache(model);
  const proxy = await serveCachedEmbeddings(cache, upstream, { cacheQueries: opts.cacheQueries });
  const env = await createDevServerEnv();
  const stack = await startTestStack({ label: opts.label, env, config: embeddingsConfig(proxy.url, { batchSize: 16, queryTimeoutMs: opts.queryTimeoutMs, sentences: opts.sentences }) });
  return {
    stack,
    cache,
    async close() {
      await stack.close();
      await env.teardown();
      await proxy.close();
      await server.stop();
    },
  };
}

export interface BenchRecord { title: string; content: string; url: string; metadata?: Record<string, string> }

/**
 * A new knowledge base `name` holding `records` as record sources (1,000 a source, refreshed manually),
 * once every source is ready with all its passages embedded; throws when a source fails.
 */
export async function indexRecords(call: ApiClient, name: string, records: BenchRecord[]): Promise<{ kb: string; passages: number }> {
  const kb = (await call('POST', '/v1/knowledge_bases', { name })).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < records.length; i += 1000) {
    const res = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: records.slice(i, i + 1000), refresh: 'manual' });
    if (res.status !== 202) throw new Error(`add source: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(res.body.id);
  }
  let passages = 0;
  for (const id of ids) {
    for (;;) {
      const s = (await call('GET', `/v1/knowledge_bases/${kb}/sources/${id}`)).body;
      if (s.status === 'failed') throw new Error(`source failed: ${JSON.stringify(s.error)}`);
      if (s.status === 'ready' && s.embedded_passages === s.passage_count) {
        passages += s.passage_count;
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return { kb, passages };
}

export async function collect(sets: BenchSet[], opts: { threads?: number; sentences?: boolean; log?: (o: unknown) => void } = {}): Promise<CollectedSet[]> {
  const log = opts.log ?? ((o) => console.error(JSON.stringify(o)));
  const { stack, cache, close } = await startBenchStack({ label: 'calibration-bench', threads: opts.threads ?? 1, cacheQueries: true, queryTimeoutMs: 600_000, sentences: opts.sentences ?? true });
  const out: CollectedSet[] = [];
  try {
    const { apiKey, accountId } = await stack.newAccount('bench');
    const call = apiClient(stack.baseUrl, apiKey);
    for (const set of sets) {
      const t0 = performance.now();
      // One knowledge base per `base` of the set (most sets: one base holding every document).
      const kbs = new Map<string, string>();
      let passages = 0;
      for (const base of [...new Set(set.docs.map((d) => d.base ?? ''))]) {
        const records = set.docs.filter((d) => (d.base ?? '') === base).map((d) => ({ title: d.title || d.id, content: d.text, url: docUrl(set.name, d.id), metadata: d.metadata }));
        const indexed = await indexRecords(call, `${set.name}${base ? ` ${base}` : ''}`, records);
        kbs.set(base, indexed.kb);
        passages += indexed.passages;
      }
      log({ set: set.name, indexed: passages, bases: kbs.size, seconds: Math.round((performance.now() - t0) / 1000), embedded_now: cache.upstream.passages });
      const queries: CollectedQuery[] = [];
      for (const q of set.queries) {
        const kb = kbs.get(q.base ?? '')!;
        const r = await stack.services.knowledgeRetrieval.retrieve({ accountId, knowledgeBaseIds: [kb], query: q.text, topK: 10, filter: q.filter, explain: true });
        const cands = (r.candidates ?? [])
          .filter((c) => Number.isFinite(c.cos))
          .map((c) => ({
            doc: docOfUrl(c.url), x: round4(c.x), cos: round4(c.cos), lexical: c.lexical, dense: c.dense,
            ...(c.sentCos != null ? { sentCos: round4(c.sentCos) } : {}), ...(c.otherLanguage ? { otherLanguage: true } : {}),
          }));
        queries.push({ id: q.id, text: q.text, answerable: q.answerable, rel: q.rel, ...(q.group ? { group: q.group } : {}), passages: r.scopePassages, cands });
        if (queries.length % 100 === 0) log({ set: set.name, asked: queries.length, of: set.queries.length });
      }
      const collected: CollectedSet = { set: set.name, subsample: set.subsample, documents: set.docs.length, passages, queries };
      fs.mkdirSync(CALIBRATION_DIR, { recursive: true });
      fs.writeFileSync(path.join(CALIBRATION_DIR, `${set.name}.json`), JSON.stringify(collected));
      out.push(collected);
    }
  } finally {
    await close();
  }
  return out;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
