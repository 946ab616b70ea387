/**
 * Benchmarks' embedding cache: vectors keyed by sha256(kind, text) in an append-only JSONL file per model
 * under data/embeddings-cache/, so a rerun of the retrieval bench does not spend half an hour embedding
 * SciFact again. `serveCachedEmbeddings` puts it in front of a real endpoint as an OpenAI-compatible
 * proxy: the service under test talks to it like to any provider, and only passage misses (and every
 * query) reach the model.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { EmbeddingKind, EmbeddingsPort } from '../src/knowledge/index/embeddings.client';

export const CACHE_DIR = path.resolve(__dirname, '../data/embeddings-cache');

const keyOf = (kind: EmbeddingKind, text: string) => createHash('sha256').update(`${kind}\n${text}`, 'utf8').digest('hex');
const encode = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
const decode = (s: string) => {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

export class EmbeddingsCache {
  private readonly vectors = new Map<string, Float32Array>();
  readonly file: string;
  /** Texts embedded by the upstream model (misses) and the seconds it took: the throughput figure. */
  readonly upstream = { passages: 0, seconds: 0, queries: 0, querySeconds: 0 };
  hits = 0;

  constructor(model: string) {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    this.file = path.join(CACHE_DIR, `${model.replace(/[^A-Za-z0-9._-]+/g, '_')}.jsonl`);
    if (fs.existsSync(this.file)) {
      for (const line of fs.readFileSync(this.file, 'utf8').split('\n')) {
        if (!line) continue;
        try {
          const { k, v } = JSON.parse(line) as { k: string; v: string };
          this.vectors.set(k, decode(v));
        } catch {
          // a line cut short by a killed run
        }
      }
    }
  }

  get size() {
    return this.vectors.size;
  }

  has(kind: EmbeddingKind, text: string) {
    return this.vectors.has(keyOf(kind, text));
  }

  /** Cached vectors, with the misses embedded by `upstream` (in batches of `batch`) and appended. */
  async embed(upstream: EmbeddingsPort, kind: EmbeddingKind, texts: string[], batch = 8): Promise<Float32Array[]> {
    const keys = texts.map((t) => keyOf(kind, t));
    const missing = [...new Set(keys.map((k, i) => (this.vectors.has(k) ? -1 : i)).filter((i) => i >= 0).map((i) => texts[i]!))];
    this.hits += texts.length - missing.length;
    for (let i = 0; i < missing.length; i += batch) {
      const chunk = missing.slice(i, i + batch);
      const t0 = performance.now();
      const vecs = await upstream.embed({ texts: chunk, kind });
      const seconds = (performance.now() - t0) / 1000;
      if (kind === 'passage') {
        this.upstream.passages += chunk.length;
        this.upstream.seconds += seconds;
      } else {
        this.upstream.queries += chunk.length;
        this.upstream.querySeconds += seconds;
      }
      const lines = chunk.map((t, j) => {
        const k = keyOf(kind, t);
        this.vectors.set(k, vecs[j]!);
        return JSON.stringify({ k, v: encode(vecs[j]!) });
      });
      fs.appendFileSync(this.file, `${lines.join('\n')}\n`);
    }
    return keys.map((k) => this.vectors.get(k)!);
  }
}

/**
 * An OpenAI-compatible embeddings endpoint on a loopback port answering from `cache`, misses from `upstream`;
 * queries too with `cacheQueries` (the calibration bench, which measures scores, not latency).
 */
export async function serveCachedEmbeddings(cache: EmbeddingsCache, upstream: EmbeddingsPort, opts: { cacheQueries?: boolean } = {}) {
  let queue = Promise.resolve();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // One request at a time reaches the model, as the model serves them anyway.
      queue = queue.then(async () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string | string[]; input_type?: string };
          const texts = Array.isArray(body.input) ? body.input : [body.input];
          const kind: EmbeddingKind = body.input_type === 'query' ? 'query' : 'passage';
          // Queries reach the model (their embedding is part of the latency measured) unless `cacheQueries`.
          const vecs = kind === 'query' && !opts.cacheQueries ? await upstream.embed({ texts, kind }) : await cache.embed(upstream, kind, texts);
          const out = JSON.stringify({
            object: 'list',
            model: upstream.model,
            data: vecs.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })),
          });
          res.writeHead(200, { 'content-type': 'application/json' }).end(out);
        } catch (err) {
          res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: (err as Error).message } }));
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
