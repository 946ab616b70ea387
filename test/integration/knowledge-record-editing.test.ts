import assert from 'node:assert/strict';
import { before, after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { apiClient, type ApiClient } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';
import { conceptVectors, embeddingsConfig, FAKE_MODEL_FUSION, startFakeEmbeddingsServer } from '../support/embeddings';
import { waitForSource } from './knowledge-helpers';
import { analyzerSql } from '../../src/knowledge/index/analyzers';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

const records = [
  { title: 'Refund policy', content: 'We reimburse every purchase in full within 14 days when the item is returned unused.', url: 'https://help.example.com/refunds', metadata: { topic: 'billing' } },
  { title: 'Shipping times', content: 'Parcels leave our warehouse daily; delivery takes three to five business days.' },
  { title: 'Password reset', content: 'Open Settings, choose Security and follow the emailed link to pick a new password.' },
  { title: 'Opening hours', content: 'The shop welcomes visitors from nine to five on weekdays.' },
];
const conceptVector = conceptVectors({
  refund: ['money', 'back', 'reimburse', 'refund', 'returned'],
  shipping: ['parcels', 'delivery', 'shipping', 'arrive'],
  password: ['password', 'login', 'security'],
  hours: ['open', 'opening', 'hours', 'shop'],
});

let env: TestWorkflowEnvironment;
let fake: Awaited<ReturnType<typeof startFakeEmbeddingsServer>>;
let stack: TestStack;
before(async () => {
  env = await createTimeSkippingEnv();
  fake = await startFakeEmbeddingsServer(conceptVector);
  stack = await startTestStack({ label: __filename, env, config: embeddingsConfig(fake.url, { batchSize: 2, fusion: FAKE_MODEL_FUSION }) });
});
after(async () => {
  await stack?.close();
  await fake?.close();
  await env?.teardown();
});

const embedded = (s: any) => s.embedded_passages === s.passage_count;

async function recordSource(rows: unknown[] = records) {
  const { apiKey, accountId } = await stack.newAccount();
  const call = apiClient(stack.baseUrl, apiKey);
  const kb = (await call('POST', '/v1/knowledge_bases', { name: 'Help' })).body.id as string;
  const added = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: rows, refresh: 'manual' });
  assert.equal(added.status, 202);
  const src = added.body.id as string;
  await waitForSource(call, kb, src, 'ready', embedded);
  const list = await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}/records?limit=100`);
  assert.equal(list.status, 200);
  const ids = Object.fromEntries(list.body.data.map((r: { title: string; id: string }) => [r.title, r.id])) as Record<string, string>;
  return { call, kb, src, accountId, ids, base: `/v1/knowledge_bases/${kb}/sources/${src}/records` };
}

const titles = async (call: ApiClient, kb: string, query: string) =>
  ((await call('POST', `/v1/knowledge_bases/${kb}/query`, { query, top_k: 5 })).body.results as { title: string; snippet: string }[]);

/** Passage rows of a source's live version, keyed by ordinal. */
async function passages(src: string) {
  const { db } = stack.database;
  return db.selectFrom('knowledge_passages').select(['version', 'ordinal', 'record_id', 'content', 'length', 'content_hash']).where('source_id', '=', src).orderBy('ordinal').execute();
}

/** Every posting list of a version equals the one a whole rebuild would write (the passages' terms, nothing else). */
async function assertPostingsMatchPassages(src: string, version: number) {
  const { rows } = await sql<{ term: string; stored: number[] | null; expected: number[] | null }>`
    with expected as (
      select t.lexeme as term, array_agg(distinct p.ordinal order by p.ordinal) as ords
      from knowledge_passages p, unnest(to_tsvector(${analyzerSql(sql`p.metadata`)}::regconfig, p.title || ' ' || coalesce(p.heading, '') || ' ' || p.content)) t
      where p.source_id = ${src} and p.version = ${version}
      group by t.lexeme
    ),
    stored as (
      select term, (select array_agg(o order by o) from unnest(ords) o) as ords, df from knowledge_terms where source_id = ${src} and version = ${version}
    )
    select coalesce(e.term, s.term) as term, s.ords as stored, e.ords as expected
    from expected e full join stored s on s.term = e.term
    where s.ords is distinct from e.ords or s.df is distinct from cardinality(e.ords)
  `.execute(stack.database.db);
  assert.deepEqual(rows, [], 'posting lists differ from the passages they index');
}

describe('knowledge records, one at a time', () => {
  it('lists a record source\'s records with rec_ ids in their pushed order, and reads one', async () => {
    const { call, base, ids, src } = await recordSource();
    const list = await call('GET', `${base}?limit=2`);
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.has_more, true);
    assert.deepEqual(list.body.data.map((r: { title: string }) => r.title), ['Refund policy', 'Shipping times']);
    const next = await call('GET', `${base}?limit=2&starting_after=${list.body.data[1].id}`);
    assert.deepEqual(next.body.data.map((r: { title: string }) => r.title), ['Password reset', 'Opening hours']);
    const one = await call('GET', `${base}/${ids['Refund policy']}`);
    assert.equal(one.status, 200);
    assert.match(one.body.id, /^rec_/);
    assert.deepEqual(
      { object: one.body.object, source_id: one.body.source_id, title: one.body.title, content: one.body.content, url: one.body.url, metadata: one.body.metadata },
      { object: 'knowledge_record', source_id: src, title: 'Refund policy', content: records[0]!.content, url: records[0]!.url, metadata: { topic: 'billing' } },
    );
  });

  it('re-indexes an edited record only: other records\' passages and vectors stay as they were, the new text is found and the old one is not', async () => {
    const { call, kb, src, ids, base, accountId } = await recordSource();
    const before = await passages(src);
    const version = before[0]!.version;
    const refundId = ids['Refund policy']!;
    const othersBefore = before.filter((p) => p.record_id !== refundId);
    assert.equal(othersBefore.length, 3);
    assert.ok((await titles(call, kb, 'reimburse purchase')).some((r) => r.title === 'Refund policy'));
    const vectorsBefore = await stack.database.db.selectFrom('knowledge_embeddings').select(['content_hash', 'vec']).where('source_id', '=', src).execute();

    const edited = await call('POST', `${base}/${refundId}`, { content: 'Store credit is issued within 30 days for goods sent back in their original packaging.', title: 'Refunds' });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.id, refundId);
    assert.equal(edited.body.title, 'Refunds');
    assert.equal(edited.body.url, records[0]!.url, 'fields left out are kept');

    // Searchable at once (no waiting for a sync), in the same version.
    const found = await titles(call, kb, 'store credit original packaging');
    assert.equal(found[0]?.title, 'Refunds');
    assert.match(found[0]!.snippet, /30 days/);
    assert.deepEqual((await titles(call, kb, 'reimburse purchase')).filter((r) => /reimburse/.test(r.snippet)), [], 'the old text is gone');

    const after = await passages(src);
    assert.ok(after.every((p) => p.version === version), 'no new version');
    assert.deepEqual(after.filter((p) => p.record_id !== refundId), othersBefore, 'other records\' passage rows are unchanged');
    assert.ok(after.some((p) => p.record_id === refundId && /Store credit/.test(p.content)));
    await assertPostingsMatchPassages(src, version);

    const source = await waitForSource(call, kb, src, 'ready', embedded);
    assert.equal(source.version, version);
    assert.equal(source.passage_count, after.length);
    assert.equal(source.record_count, 4);
    const vectorsAfter = await stack.database.db.selectFrom('knowledge_embeddings').select(['content_hash', 'vec']).where('source_id', '=', src).execute();
    const hex = (rows: { content_hash: Buffer; vec: Buffer }[]) => new Map(rows.map((r) => [r.content_hash.toString('hex'), r.vec.toString('hex')]));
    const was = hex(vectorsBefore);
    const now = hex(vectorsAfter);
    for (const p of othersBefore) assert.equal(now.get(p.content_hash!.toString('hex')), was.get(p.content_hash!.toString('hex')), 'other records keep their vectors');
    for (const p of after) assert.ok(now.has(p.content_hash!.toString('hex')), 'every passage has its vector, the edited one too');

    const events = await stack.database.db.selectFrom('events').select(['type', 'data']).where('account_id', '=', accountId).orderBy('created_at').execute();
    assert.deepEqual(events.map((e) => e.type), ['knowledge.source.ready', 'knowledge.source.ready']);
  });

  it('adds and deletes single records, each searchable or gone at once', async () => {
    const { call, kb, src, base, ids } = await recordSource();
    const added = await call('POST', base, { title: 'Gift cards', content: 'Gift cards never expire and can be used on any order.', metadata: { topic: 'billing', featured: true } });
    assert.equal(added.status, 201);
    assert.match(added.body.id, /^rec_/);
    assert.deepEqual(added.body.metadata, { topic: 'billing', featured: 'true' });
    assert.equal((await titles(call, kb, 'do gift cards expire'))[0]?.title, 'Gift cards');
    const list = await call('GET', base);
    assert.equal(list.body.data.at(-1).id, added.body.id, 'a new record comes last');
    assert.equal((await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body.record_count, 5);

    const gone = await call('DELETE', `${base}/${ids['Opening hours']}`);
    assert.deepEqual(gone.body, { id: ids['Opening hours'], object: 'knowledge_record', deleted: true });
    assert.equal((await call('GET', `${base}/${ids['Opening hours']}`)).status, 404);
    assert.deepEqual((await titles(call, kb, 'shop welcomes visitors weekdays')).filter((r) => r.title === 'Opening hours'), []);
    const source = (await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body;
    assert.equal(source.record_count, 4);
    assert.equal(source.passage_count, (await passages(src)).length);
    await assertPostingsMatchPassages(src, source.version);
  });

  it('loses no edit when several records of one source are edited at the same time', async () => {
    const { call, kb, src, base, ids } = await recordSource();
    const words = ['aardvark', 'bison', 'chinchilla', 'dromedary'];
    const results = await Promise.all(records.map((r, i) => call('POST', `${base}/${ids[r.title]}`, { content: `${r.content} Ask about the ${words[i]}.` })));
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200]);
    for (const [i, r] of records.entries()) assert.equal((await titles(call, kb, words[i]!))[0]?.title, r.title, `the ${words[i]} edit is indexed`);
    const source = await waitForSource(call, kb, src, 'ready', embedded);
    await assertPostingsMatchPassages(src, source.version);
    assert.equal(source.passage_count, (await passages(src)).length);
  });

  it('re-syncs a source indexed before records had ids whole (a new version) on its first record edit', async () => {
    const { call, kb, src, base, ids } = await recordSource();
    await stack.database.db.updateTable('knowledge_passages').set({ record_id: null }).where('source_id', '=', src).execute();
    const edited = await call('POST', `${base}/${ids['Shipping times']}`, { content: 'Parcels now arrive by drone within the hour.' });
    assert.equal(edited.status, 200);
    const source = await waitForSource(call, kb, src, 'ready', (s) => s.version === 2);
    assert.equal(source.passage_count, 4);
    assert.equal((await titles(call, kb, 'drone'))[0]?.title, 'Shipping times');
    assert.ok((await passages(src)).every((p) => p.record_id !== null), 'the new version names its records');
  });

  it('answers 404 for another account\'s ids, 422 source_not_record for other source types, 400 naming the parameter for bad bodies', async () => {
    const { call, kb, src, base, ids } = await recordSource();
    const other = apiClient(stack.baseUrl, (await stack.newAccount()).apiKey);
    const rec = ids['Refund policy']!;
    for (const [method, path, body] of [
      ['GET', base, undefined], ['POST', base, { title: 't', content: 'c' }], ['GET', `${base}/${rec}`, undefined],
      ['POST', `${base}/${rec}`, { content: 'stolen' }], ['DELETE', `${base}/${rec}`, undefined],
    ] as const) {
      const res = await other(method, path, body);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, 'resource_missing');
    }
    assert.equal((await call('GET', `${base}/${rec}`)).body.content, records[0]!.content, 'nothing changed');

    // A record id of another source of the same account is not found under this one.
    const second = await recordSource([{ title: 'Elsewhere', content: 'Another source.' }]);
    const res = await call('GET', `${base}/${second.ids['Elsewhere']}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.param, 'record_id');

    const url = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'url', url: 'http://127.0.0.1:9/docs/', refresh: 'manual' });
    const urlBase = `/v1/knowledge_bases/${kb}/sources/${url.body.id}/records`;
    for (const [method, path, body] of [['GET', urlBase, undefined], ['POST', urlBase, { title: 't', content: 'c' }], ['GET', `${urlBase}/${rec}`, undefined], ['DELETE', `${urlBase}/${rec}`, undefined]] as const) {
      const r = await call(method, path, body);
      assert.equal(r.status, 422, `${method} ${path}`);
      assert.equal(r.body.error.code, 'source_not_record');
    }

    for (const [body, param] of [
      [{ title: 'No content' }, 'content'],
      [{ title: '', content: 'x' }, 'title'],
      [{ title: 'x'.repeat(1001), content: 'x' }, 'title'],
      [{ title: 't', content: 'c', url: 'not a url' }, 'url'],
      [{ title: 't', content: 'c', colour: 'red' }, 'colour'],
      [{ title: 't', content: 'c', metadata: { nested: { a: 1 } } }, 'metadata.nested'],
    ] as const) {
      const r = await call('POST', base, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.param, param, JSON.stringify(r.body.error));
    }
    const badEdit = await call('POST', `${base}/${rec}`, { content: '' });
    assert.equal(badEdit.status, 400);
    assert.equal(badEdit.body.error.param, 'content');
    assert.equal((await call('GET', base)).body.data.length, 4, 'no record was added');
    assert.equal((await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body.record_count, 4);
  });
});
