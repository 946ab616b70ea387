import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { OpenAiEmbeddingsClient } from '../../src/knowledge/index/embeddings.client';
import { passageEmbeddingText, sentenceEmbeddingTexts } from '../../src/knowledge/index/embedding-text';
import { dot, fusionModelOf } from '../../src/knowledge/index/scoring';
import { decodeVector, decodeVectors } from '../../src/knowledge/index/vector-index.repo';
import { KnowledgeEmbeddingService } from '../../src/knowledge/knowledge-embedding.service';
import { KnowledgeRetrievalService } from '../../src/knowledge/knowledge-retrieval.service';
import { embeddingsConfig, FAKE_MODEL_FUSION, startFakeEmbeddingsServer, conceptVectors } from '../support/embeddings';
import { apiClient } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { createDevServerEnv } from '../support/temporal';
import { waitForSource } from './knowledge-helpers';

/** A paragraph whose answer is one of its three sentences, and a one-sentence record. */
const RETURNS = {
  title: 'Returns',
  content: 'Our shop is in Berlin near the station. You can send an item back within 30 days for a full refund. Parcels ship free above 50 euros.',
};
const HOURS = { title: 'Opening hours', content: 'The shop welcomes visitors from nine to five on weekdays.' };
const QUESTION = 'Can I get a refund and send it back?';
const BATCH = 2;

/** The fake model's "meaning": words of one topic share an axis; every other word adds a little noise. */
const topics: Record<string, string[]> = {
  refund: ['refund', 'back', 'money'],
  shipping: ['parcels', 'ship', 'delivery'],
  place: ['berlin', 'station', 'shop'],
  hours: ['nine', 'five', 'weekdays', 'visitors'],
};
const conceptVector = conceptVectors(topics);
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
};

let env: TestWorkflowEnvironment;
let fake: Awaited<ReturnType<typeof startFakeEmbeddingsServer>>;
let stack: TestStack;

before(async () => {
  env = await createDevServerEnv();
  fake = await startFakeEmbeddingsServer(conceptVector);
  stack = await startTestStack({
    label: __filename,
    env,
    config: embeddingsConfig(fake.url, { batchSize: BATCH, fusion: FAKE_MODEL_FUSION }),
  });
});
after(async () => {
  await stack?.close();
  await fake?.close();
  await env?.teardown();
});

const embedded = (s: any) => s.embedded_passages === s.passage_count;

async function addSource() {
  const { apiKey, accountId } = await stack.newAccount();
  const call = apiClient(stack.baseUrl, apiKey);
  const kb = (await call('POST', '/v1/knowledge_bases', { name: 'Help' })).body.id as string;
  const added = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: [RETURNS, HOURS], refresh: 'manual' });
  assert.equal(added.status, 202);
  const src = added.body.id as string;
  const ready = await waitForSource(call, kb, src, 'ready', embedded);
  return { call, kb, src, accountId, version: ready.version as number };
}

/** Each passage of the source with its stored row (vector, dims, sentence vectors). */
async function storedRows(src: string) {
  const db = stack.database.db;
  const passages = await db.selectFrom('knowledge_passages').select(['ordinal', 'title', 'heading', 'content', 'content_hash']).where('source_id', '=', src).execute();
  const rows = await db.selectFrom('knowledge_embeddings').select(['content_hash', 'dims', 'vec', 'sentence_vecs']).where('source_id', '=', src).execute();
  return passages.map((p) => ({ p, row: rows.find((r) => r.content_hash.equals(p.content_hash!))! }));
}
const rowOf = (rows: Awaited<ReturnType<typeof storedRows>>, title: string) => rows.find((r) => r.p.title === title)!;

describe('sentence vectors', () => {
  it('stores one vector per sentence (title above it) for a multi-sentence passage and none for a one-sentence one', async () => {
    const seen = fake.requests.length;
    const { src } = await addSource();
    const rows = await storedRows(src);
    const returns = rowOf(rows, 'Returns');
    const texts = sentenceEmbeddingTexts(returns.p);
    assert.equal(texts.length, 3);
    assert.ok(texts.every((t) => t.startsWith('Returns\n')), JSON.stringify(texts));
    const stored = decodeVectors(returns.row.sentence_vecs!, returns.row.dims);
    assert.equal(stored.length, 3);
    stored.forEach((v, i) => {
      const want = unit(conceptVector(texts[i]!));
      assert.ok(v.every((x, j) => Math.abs(x - want[j]!) < 1e-6), `sentence ${i} is the model's vector of ${JSON.stringify(texts[i])}`);
    });
    const hours = rowOf(rows, 'Opening hours');
    assert.ok(hours.row.sentence_vecs, 'computed, not null');
    assert.equal(hours.row.sentence_vecs.byteLength, 0);
    // Passage and sentence texts travel in requests of at most EMBEDDINGS_BATCH_SIZE texts.
    const sent = fake.requests.slice(seen).filter((r) => r.input_type === 'passage');
    assert.ok(sent.every((r) => r.input.length <= BATCH), JSON.stringify(sent.map((r) => r.input.length)));
    const all = sent.flatMap((r) => r.input);
    assert.deepEqual(all.filter((t) => texts.includes(t)).sort(), [...texts].sort());
    assert.ok(all.includes(passageEmbeddingText(returns.p)) && all.includes(passageEmbeddingText(hours.p)));
  });

  it('fills sentence vectors missing from stored rows on the next backfill, keeping the passage vectors', async () => {
    const { call, kb, src, version } = await addSource();
    const before = await storedRows(src);
    await stack.database.db.updateTable('knowledge_embeddings').set({ sentence_vecs: null }).where('source_id', '=', src).execute();

    // Switched off: nothing computes them.
    const backfill = new OpenAiEmbeddingsClient({ url: fake.url, model: stack.config.embeddings.model, inputType: true, timeoutMs: 5000 });
    const off = new KnowledgeEmbeddingService({ db: stack.database.db, embeddings: backfill, batchSize: BATCH, sentences: false });
    let seen = fake.requests.length;
    assert.deepEqual(await off.embedSource({ sourceId: src, version }), { status: 'done', embeddedPassages: 2, computed: 0 });
    assert.equal(fake.requests.length, seen);
    assert.ok((await storedRows(src)).every((r) => r.row.sentence_vecs === null));

    seen = fake.requests.length;
    const res = await stack.services.knowledgeEmbedding.embedSource({ sourceId: src, version });
    assert.deepEqual(res, { status: 'done', embeddedPassages: 2, computed: 0 }, 'no passage vector computed again');
    const sent = fake.requests.slice(seen).flatMap((r) => r.input);
    const returnsBefore = rowOf(before, 'Returns');
    assert.deepEqual(sent, sentenceEmbeddingTexts(returnsBefore.p), 'only the sentences were embedded');
    const after = await storedRows(src);
    for (const title of ['Returns', 'Opening hours']) {
      const [was, now] = [rowOf(before, title).row, rowOf(after, title).row];
      assert.ok(now.vec.equals(was.vec), `${title}: passage vector kept`);
      assert.ok(now.sentence_vecs?.equals(was.sentence_vecs!), `${title}: sentence vectors filled as before`);
    }
    const source = (await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body;
    assert.equal(source.embedded_passages, 2);
    // A second run finds nothing left to do.
    seen = fake.requests.length;
    await stack.services.knowledgeEmbedding.embedSource({ sourceId: src, version });
    assert.equal(fake.requests.length, seen);
  });

  it("gives explained candidates the best sentence's cosine (sentCos), above the passage's own for a question one sentence answers", async () => {
    const { kb, src, accountId } = await addSource();
    const retrieve = (svc: KnowledgeRetrievalService) => svc.retrieve({ accountId, knowledgeBaseIds: [kb], query: QUESTION, explain: true });
    const { candidates } = await retrieve(stack.services.knowledgeRetrieval);
    const rows = await storedRows(src);
    const candidateOf = (list: typeof candidates, title: string) => list!.find((c) => c.sourceId === src && c.ordinal === rowOf(rows, title).p.ordinal)!;
    const returns = candidateOf(candidates, 'Returns');
    const hours = candidateOf(candidates, 'Opening hours');
    assert.ok(returns && hours, JSON.stringify(candidates));
    // The expected best sentence cosine, computed here from the model's vectors of the sentence texts.
    const q = unit(conceptVector(QUESTION));
    const want = Math.max(...sentenceEmbeddingTexts(rowOf(rows, 'Returns').p).map((t) => dot(q, unit(conceptVector(t)))));
    assert.ok(Math.abs(returns.sentCos! - want) < 1e-5, `${returns.sentCos} vs ${want}`);
    assert.ok(Math.abs(returns.cos - dot(q, decodeVector(rowOf(rows, 'Returns').row.vec))) < 1e-5);
    assert.ok(returns.sentCos! > returns.cos, `best sentence ${returns.sentCos} above the paragraph ${returns.cos}`);
    assert.equal(hours.sentCos, null, 'a one-sentence passage has no sentence vectors');

    // Retrieval with the switch off reads none.
    const off = new KnowledgeRetrievalService({
      db: stack.database.db, accounts: stack.services.accounts, allowPrivateNetwork: true, apiTimeoutMs: 1000,
      embeddings: stack.services.queryEmbeddings, fusion: fusionModelOf(stack.config.embeddings.fusion!), sentences: false,
    });
    assert.ok((await retrieve(off)).candidates!.every((c) => c.sentCos === null));

    // A row whose sentence vectors cannot be read (bytes that are no whole vector) is skipped on its own:
    // the query is answered, and the other passages keep their best sentence.
    const hoursHash = rowOf(rows, 'Opening hours').p.content_hash;
    await stack.database.db.updateTable('knowledge_embeddings').set({ sentence_vecs: Buffer.from([1, 2, 3]) }).where('source_id', '=', src).where('content_hash', '=', hoursHash).execute();
    const unreadable = await retrieve(stack.services.knowledgeRetrieval);
    assert.ok(unreadable.results.length > 0);
    assert.equal(candidateOf(unreadable.candidates, 'Opening hours').sentCos, null);
    assert.equal(candidateOf(unreadable.candidates, 'Returns').sentCos, returns.sentCos);

    // Rows not filled yet (null) leave it undefined.
    await stack.database.db.updateTable('knowledge_embeddings').set({ sentence_vecs: null }).where('source_id', '=', src).execute();
    const again = await retrieve(stack.services.knowledgeRetrieval);
    assert.equal(candidateOf(again.candidates, 'Returns').sentCos, null);
  });

  it('keeps the passage vectors of a batch whose sentence request fails; the retry embeds the sentences only', async () => {
    const { src, version } = await addSource();
    const db = stack.database.db;
    const sentenceTexts = new Set(sentenceEmbeddingTexts(rowOf(await storedRows(src), 'Returns').p));
    await db.deleteFrom('knowledge_embeddings').where('source_id', '=', src).execute();
    const upstream = new OpenAiEmbeddingsClient({ url: fake.url, model: stack.config.embeddings.model, inputType: true, timeoutMs: 5000 });
    const flaky = {
      model: upstream.model,
      embed: async (input: { texts: string[]; kind: 'query' | 'passage' }) => {
        if (input.texts.some((t) => sentenceTexts.has(t))) throw new Error('embeddings endpoint down');
        return upstream.embed(input);
      },
    };
    const failing = new KnowledgeEmbeddingService({ db, embeddings: flaky, batchSize: BATCH, sentences: true });
    await assert.rejects(failing.embedSource({ sourceId: src, version }), /endpoint down/);
    const kept = await storedRows(src);
    assert.ok(kept.every((r) => r.row?.vec && r.row.sentence_vecs === null), 'passage vectors stored, sentence vectors still to do');
    const retry = new KnowledgeEmbeddingService({ db, embeddings: upstream, batchSize: BATCH, sentences: true });
    assert.deepEqual(await retry.embedSource({ sourceId: src, version }), { status: 'done', embeddedPassages: 2, computed: 0 });
    const done = await storedRows(src);
    assert.equal(decodeVectors(rowOf(done, 'Returns').row.sentence_vecs!, rowOf(done, 'Returns').row.dims).length, 3);
    assert.equal(rowOf(done, 'Opening hours').row.sentence_vecs?.byteLength, 0);
  });
});
