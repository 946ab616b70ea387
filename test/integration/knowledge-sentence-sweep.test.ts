import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createRuntime } from '../../src/app/runtime';
import { knowledgeEmbedWorkflowId, type KnowledgeEmbedResult } from '../../workflows/shared/knowledge.contracts';
import { conceptVectors, embeddingsConfig, startFakeEmbeddingsServer } from '../support/embeddings';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { startTestStack, type TestStack } from '../support/stack';
import { createDevServerEnv, workflowBundle } from '../support/temporal';
import { startSite, waitForSource } from './knowledge-helpers';

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const RETURNS = page('Returns', '<main><h1>Returns</h1><p>Our shop is in Berlin near the station. You can send an item back within 30 days for a full refund. Parcels ship free above 50 euros.</p></main>');

const conceptVector = conceptVectors({ refund: ['refund', 'back', 'money'], shipping: ['parcels', 'ship'], place: ['berlin', 'station', 'shop'] });

let env: TestWorkflowEnvironment;
let fake: Awaited<ReturnType<typeof startFakeEmbeddingsServer>>;
let site: Awaited<ReturnType<typeof startSite>>;
let stack: TestStack;

before(async () => {
  env = await createDevServerEnv();
  fake = await startFakeEmbeddingsServer(conceptVector);
  site = await startSite({ '/help/': { body: RETURNS }, '/faq/': { body: page('Faq', '<p>Delivery takes two days. Parcels ship from Berlin.</p>') } });
  stack = await startTestStack({ label: __filename, env, config: embeddingsConfig(fake.url, { batchSize: 4 }) });
});
after(async () => {
  await stack?.close();
  await site?.close();
  await fake?.close();
  await env?.teardown();
});

/** A `manual` url source, synced once and embedded (passage and sentence vectors). */
async function addSource(path: string) {
  const { apiKey } = await stack.newAccount();
  const call = apiClient(stack.baseUrl, apiKey);
  const kb = (await call('POST', '/v1/knowledge_bases', { name: 'Help' })).body.id as string;
  const added = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'url', url: `${site.url}${path}`, refresh: 'manual' });
  assert.equal(added.status, 202, JSON.stringify(added.body));
  const src = added.body.id as string;
  const ready = await waitForSource(call, kb, src, 'ready', (s) => s.embedded_passages === s.passage_count && s.passage_count > 0);
  return { call, kb, src, version: ready.version as number };
}

const rowsOf = (src: string) =>
  stack.database.db.selectFrom('knowledge_embeddings').select(['content_hash', 'vec', 'sentence_vecs']).where('source_id', '=', src).orderBy('content_hash').execute();
const versionsOf = async (src: string) =>
  (await stack.database.db.selectFrom('knowledge_passages').select('version').distinct().where('source_id', '=', src).execute()).map((r) => r.version);
const embedRun = (src: string) => stack.gateway.client.workflow.getHandle(knowledgeEmbedWorkflowId(src));

describe('sentence vector sweep', () => {
  it('backfills the sentence vectors of stored rows that lack them, without a sync, and starts nothing for complete sources', async () => {
    const stripped = await addSource('/help/');
    const complete = await addSource('/faq/');
    const before = await rowsOf(stripped.src);
    assert.ok(before.some((r) => r.sentence_vecs && r.sentence_vecs.byteLength > 0), 'the page has a multi-sentence passage');
    const completeBefore = await rowsOf(complete.src);
    await stack.database.db.updateTable('knowledge_embeddings').set({ sentence_vecs: null }).where('source_id', '=', stripped.src).execute();
    const fetched = site.fetched.length;
    const requests = fake.requests.length;

    // While a source's own sync is still embedding it (passage vectors short), the sweep leaves it to that sync.
    const counts = await stack.database.db.selectFrom('knowledge_sources').select('embedded_passages').where('id', '=', stripped.src).executeTakeFirstOrThrow();
    await stack.database.db.updateTable('knowledge_sources').set({ embedded_passages: 0 }).where('id', '=', stripped.src).execute();
    assert.deepEqual(await stack.services.knowledgeEmbedding.sweepMissingSentenceVectors(), { found: 0, started: 0 });
    await stack.database.db.updateTable('knowledge_sources').set({ embedded_passages: counts.embedded_passages }).where('id', '=', stripped.src).execute();

    assert.deepEqual(await stack.services.knowledgeEmbedding.sweepMissingSentenceVectors(), { found: 1, started: 1 });
    const filled = await pollUntil('the sentence vectors to be back', async () => {
      const rows = await rowsOf(stripped.src);
      return rows.every((r) => r.sentence_vecs !== null) && rows;
    }, { intervalMs: 100 });
    const result: KnowledgeEmbedResult = await embedRun(stripped.src).result();
    assert.deepEqual(result, { status: 'done', embeddedPassages: before.length, computed: 0 }, 'no passage vector computed again');
    assert.equal(filled.length, before.length);
    filled.forEach((r, i) => {
      assert.ok(r.vec.equals(before[i]!.vec), 'passage vector kept');
      assert.ok(r.sentence_vecs!.equals(before[i]!.sentence_vecs!), 'sentence vectors as the sync computed them');
    });
    // Only sentence texts were embedded; nothing was fetched and no version was built.
    assert.ok(fake.requests.length > requests);
    assert.ok(fake.requests.slice(requests).every((r) => r.input_type === 'passage'));
    assert.equal(site.fetched.length, fetched, JSON.stringify(site.fetched.slice(fetched)));
    assert.deepEqual(await versionsOf(stripped.src), [stripped.version]);
    const source = (await stripped.call('GET', `/v1/knowledge_bases/${stripped.kb}/sources/${stripped.src}`)).body;
    assert.equal(source.version, stripped.version);
    assert.equal(source.status, 'ready');

    // The complete source got no run, and its rows are as they were.
    await assert.rejects(embedRun(complete.src).describe(), WorkflowNotFoundError);
    assert.deepEqual(await rowsOf(complete.src), completeBefore);

    // Nothing left: a second sweep starts nothing.
    const quiet = fake.requests.length;
    assert.deepEqual(await stack.services.knowledgeEmbedding.sweepMissingSentenceVectors(), { found: 0, started: 0 });
    assert.equal(fake.requests.length, quiet);
  });

  it('runs a source again on a later sweep, but never twice at once', async () => {
    const { src, version } = await addSource('/help/');
    await stack.database.db.updateTable('knowledge_embeddings').set({ sentence_vecs: null }).where('source_id', '=', src).execute();
    const sweep = () => stack.services.knowledgeEmbedding.sweepMissingSentenceVectors();
    // Only this file's sources exist in its schema; the first test's are complete again.
    assert.deepEqual(await sweep(), { found: 1, started: 1 });
    assert.equal((await embedRun(src).result()).status, 'done');

    // Stripped again: the same workflow id starts again once the earlier run closed.
    await stack.database.db.updateTable('knowledge_embeddings').set({ sentence_vecs: null }).where('source_id', '=', src).execute();
    fake.state.delayMs = 1500;
    try {
      assert.deepEqual(await sweep(), { found: 1, started: 1 });
      // Any embedding request is held until both sweeps are done, so the run cannot end between them:
      // the second finds the source still missing its sentence vectors, and starts nothing.
      assert.deepEqual(await sweep(), { found: 1, started: 0 });
    } finally {
      fake.state.delayMs = 0;
    }
    assert.equal((await embedRun(src).result()).status, 'done');
    assert.ok((await rowsOf(src)).every((r) => r.sentence_vecs !== null));
    assert.deepEqual(await versionsOf(src), [version]);
  });

  it("runs at the worker's boot when embeddings and sentence vectors are on, and not when they are off", async () => {
    const { src } = await addSource('/help/');
    await stack.database.db.updateTable('knowledge_embeddings').set({ sentence_vecs: null }).where('source_id', '=', src).execute();
    /** The production wiring on this file's database, with a task queue of its own: only its worker runs what it starts. */
    const boot = async (sentences: boolean) => {
      const lines: any[] = [];
      const log = pino({ level: 'info' }, new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(chunk.toString())); cb(); } }));
      const config = {
        ...stack.config,
        embeddings: { ...stack.config.embeddings, sentences },
        temporal: { ...stack.config.temporal, taskQueue: `${stack.config.temporal.taskQueue}-boot-${sentences}` },
      };
      const runtime = await createRuntime({ config, db: stack.database.db, log, temporalAddress: env.address, workflowBundle: await workflowBundle() });
      await runtime.startWorker();
      return { runtime, lines, swept: () => lines.find((l) => /^Sentence vector sweep/.test(l.msg)) };
    };

    // Closing waits for a sweep the boot started, so after it the log says whether one ran.
    const off = await boot(false);
    await off.runtime.close();
    assert.equal(off.swept(), undefined, JSON.stringify(off.lines.map((l) => l.msg)));
    await assert.rejects(embedRun(src).describe(), WorkflowNotFoundError);
    assert.ok((await rowsOf(src)).every((r) => r.sentence_vecs === null));

    const on = await boot(true);
    try {
      const line = await pollUntil('the boot sweep to log', () => on.swept(), { detail: () => JSON.stringify(on.lines.map((l) => l.msg)) });
      assert.equal(line.found, 1);
      assert.equal(line.started, 1);
      assert.equal((await embedRun(src).result()).status, 'done');
      assert.ok((await rowsOf(src)).every((r) => r.sentence_vecs !== null));
    } finally {
      await on.runtime.close();
    }
  });
});
