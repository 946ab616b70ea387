import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { apiClient, type ApiClient } from '../support/http';
import { useTestStack } from '../support/stack';
import { knowledgeRefreshScheduleId } from '../../workflows/shared/knowledge.contracts';
import { startSite, waitForSource } from './knowledge-helpers';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });

const faq = [
  { title: 'Refund policy', content: 'Refunds are issued within 14 days of purchase to the original payment method.', url: 'https://help.example.com/refunds', metadata: { topic: 'billing' } },
  { title: 'Shipping times', content: 'Standard shipping takes 3 to 5 business days. Express shipping arrives the next day.', metadata: { topic: 'shipping' } },
  { title: 'Password reset', content: 'To reset your password, open Settings, choose Security and click Reset password.' },
];

async function newBase(call: ApiClient, name = 'Help center') {
  const res = await call('POST', '/v1/knowledge_bases', { name });
  assert.equal(res.status, 201);
  assert.match(res.body.id, /^kb_/);
  return res.body.id as string;
}

describe('record sources', () => {
  it('indexes pushed rows, answers queries with calibrated scores and citations, and replaces rows on a new push', async () => {
    const { apiKey, accountId } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const kb = await newBase(call);
    const added = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: faq, metadata: { locale: 'en' } });
    assert.equal(added.status, 202);
    assert.match(added.body.id, /^src_/);
    assert.equal(added.body.status, 'indexing');
    assert.equal(added.body.refresh, 'weekly');
    const ready = await waitForSource(call, kb, added.body.id, 'ready');
    assert.equal(ready.passage_count, 3);
    assert.equal(ready.version, 1);
    assert.equal(ready.record_count, 3);
    assert.ok(ready.last_synced_at);
    assert.ok(Date.parse(ready.next_sync_at) > Date.now());

    const q = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'How long do refunds take?' });
    assert.equal(q.status, 200);
    assert.ok(q.body.results.length >= 1);
    const top = q.body.results[0];
    assert.equal(top.source_id, added.body.id);
    assert.equal(top.title, 'Refund policy');
    assert.equal(top.url, 'https://help.example.com/refunds');
    assert.match(top.snippet, /14 days/);
    assert.ok(top.score > 0 && top.score <= 1);
    for (let i = 1; i < q.body.results.length; i++) assert.ok(q.body.results[i - 1].score >= q.body.results[i].score);

    const nothing = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'quantum chromodynamics lattice gluon' });
    assert.equal(nothing.status, 200);
    assert.deepEqual(nothing.body.results, []);
    const weak = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'volcano eruption history of Iceland purchase' });
    assert.ok(weak.body.results.every((r: { score: number }) => r.score < top.score));

    const pushed = await call('POST', `/v1/knowledge_bases/${kb}/sources/${added.body.id}`, {
      records: [{ title: 'Gift cards', content: 'Gift cards never expire and can be used on any order.' }],
    });
    assert.equal(pushed.status, 200);
    const replaced = await waitForSource(call, kb, added.body.id, 'ready', (s) => s.version === 2);
    assert.equal(replaced.passage_count, 1);
    const old = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'refunds' });
    assert.deepEqual(old.body.results, []);
    const fresh = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'do gift cards expire' });
    assert.equal(fresh.body.results[0].title, 'Gift cards');

    const events = await ctx.stack.database.db.selectFrom('events').select(['type', 'data']).where('account_id', '=', accountId).orderBy('created_at').execute();
    assert.deepEqual(events.map((e) => e.type), ['knowledge.source.ready', 'knowledge.source.ready']);
    assert.equal((events[0]!.data as { id: string }).id, added.body.id);
  });

  it('filters on source metadata by equality and `in`, combined, and honours top_k and min_score', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const kb = await newBase(call);
    const rows = (locale: string) => [
      { title: `Opening hours ${locale}`, content: `Our store opening hours (${locale}) are 9 to 17 on weekdays.` },
      { title: `Store address ${locale}`, content: `The store (${locale}) is on Main Street; opening hours are posted at the door.` },
    ];
    const ids: Record<string, string> = {};
    for (const [locale, product] of [['en', 'a'], ['fr', 'a'], ['de', 'b']] as const) {
      const r = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: rows(locale), metadata: { locale, product }, refresh: 'manual' });
      ids[locale] = r.body.id;
    }
    for (const id of Object.values(ids)) await waitForSource(call, kb, id, 'ready');
    const query = (body: object) => call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'store opening hours', ...body });
    const sourcesOf = (res: { body: { results: { source_id: string }[] } }) => [...new Set(res.body.results.map((r) => r.source_id))].sort();

    assert.deepEqual(sourcesOf(await query({ top_k: 50 })), Object.values(ids).sort());
    assert.deepEqual(sourcesOf(await query({ filter: { locale: 'fr' } })), [ids.fr]);
    assert.deepEqual(sourcesOf(await query({ filter: { locale: { in: ['en', 'de'] } }, top_k: 50 })), [ids.en, ids.de].sort());
    assert.deepEqual(sourcesOf(await query({ filter: { locale: { in: ['en', 'de'] }, product: 'b' } })), [ids.de]);
    assert.deepEqual((await query({ filter: { locale: 'es' } })).body.results, []);

    const def = await query({});
    assert.equal(def.body.results.length, 5);
    assert.equal((await query({ top_k: 2 })).body.results.length, 2);
    const all = await query({ top_k: 50 });
    assert.equal(all.body.results.length, 6);
    const cut = all.body.results[2].score;
    const filtered = await query({ top_k: 50, min_score: cut });
    assert.ok(filtered.body.results.length >= 3 && filtered.body.results.every((r: { score: number }) => r.score >= cut));
    assert.deepEqual((await query({ min_score: 1 })).body.results.filter((r: { score: number }) => r.score < 1), []);

    const bad = await query({ top_k: 51 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'top_k');
    const unknown = await query({ colour: 'red' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'parameter_unknown');
    const badScore = await query({ min_score: 1.5 });
    assert.equal(badScore.body.error.param, 'min_score');
  });

  it('answers 409 source_indexing while every source is indexing, then serves the ready version', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const site = await startSite({ '/docs/': { body: '<html><head><title>Slow</title></head><body><p>Slow page about parcels.</p></body></html>', before: () => gate } });
    try {
      const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
      const kb = await newBase(call);
      const empty = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'parcels' });
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body.results, []);
      const src = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'url', url: `${site.url}/docs/`, refresh: 'manual' });
      assert.equal(src.status, 202);
      const busy = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'parcels' });
      assert.equal(busy.status, 409);
      assert.equal(busy.body.error.code, 'source_indexing');
      assert.equal(busy.body.error.type, 'conflict_error');
      release();
      await waitForSource(call, kb, src.body.id, 'ready');
      const ok = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'parcels' });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.results[0].title, 'Slow');
    } finally {
      release();
      await site.close();
    }
  });

  it('keeps a refresh schedule per source: created, updated, removed with the source and with the base', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const kb = await newBase(call);
    const schedules = ctx.env.client.schedule;
    const src = (await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: faq })).body.id as string;
    await waitForSource(call, kb, src, 'ready');
    const described = await schedules.getHandle(knowledgeRefreshScheduleId(src)).describe();
    assert.equal(described.policies.overlap, ScheduleOverlapPolicy.SKIP);
    assert.equal(described.spec.intervals?.[0]?.every, 7 * 24 * 3600 * 1000);
    assert.equal(described.action.type, 'startWorkflow');

    // A scheduled run is an ordinary sync: it builds the next version.
    await schedules.getHandle(knowledgeRefreshScheduleId(src)).trigger();
    await waitForSource(call, kb, src, 'ready', (s) => s.version === 2);

    const daily = await call('POST', `/v1/knowledge_bases/${kb}/sources/${src}`, { refresh: 'daily' });
    assert.equal(daily.body.refresh, 'daily');
    assert.equal((await schedules.getHandle(knowledgeRefreshScheduleId(src)).describe()).spec.intervals?.[0]?.every, 24 * 3600 * 1000);

    await call('POST', `/v1/knowledge_bases/${kb}/sources/${src}`, { refresh: 'manual' });
    await assert.rejects(schedules.getHandle(knowledgeRefreshScheduleId(src)).describe(), ScheduleNotFoundError);
    assert.equal((await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body.next_sync_at, null);

    const second = (await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: faq, refresh: 'daily' })).body.id as string;
    const third = (await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: faq })).body.id as string;
    await schedules.getHandle(knowledgeRefreshScheduleId(second)).describe();
    const deleted = await call('DELETE', `/v1/knowledge_bases/${kb}/sources/${second}`);
    assert.deepEqual(deleted.body, { id: second, object: 'knowledge_source', deleted: true });
    await assert.rejects(schedules.getHandle(knowledgeRefreshScheduleId(second)).describe(), ScheduleNotFoundError);
    assert.equal((await call('GET', `/v1/knowledge_bases/${kb}/sources/${second}`)).status, 404);

    await schedules.getHandle(knowledgeRefreshScheduleId(third)).describe();
    assert.equal((await call('DELETE', `/v1/knowledge_bases/${kb}`)).status, 200);
    await assert.rejects(schedules.getHandle(knowledgeRefreshScheduleId(third)).describe(), ScheduleNotFoundError);
    assert.equal((await call('GET', `/v1/knowledge_bases/${kb}`)).status, 404);
  });

  it('validates sources and keeps accounts apart', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const other = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const kb = await newBase(call);
    const missing = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.param, 'records');
    const wrong = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'url', url: 'https://example.com', records: faq });
    assert.equal(wrong.body.error.param, 'records');
    const badRecord = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: [{ title: 'x' }] });
    assert.equal(badRecord.body.error.param, 'records.0.content');
    const noFile = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'document', file_id: 'file_nope' });
    assert.equal(noFile.status, 422, 'a missing file named in the body (the base is there)');
    assert.equal(noFile.body.error.param, 'file_id');
    assert.equal((await other('GET', `/v1/knowledge_bases/${kb}`)).status, 404);
    assert.equal((await other('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'x' })).status, 404);
    assert.equal((await other('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: faq })).status, 404);
    assert.equal((await call('GET', `/v1/knowledge_bases/${kb}/sources`)).body.data.length, 0);
    const list = await call('GET', '/v1/knowledge_bases');
    assert.equal(list.body.object, 'list');
    assert.deepEqual(list.body.data.map((b: { id: string }) => b.id), [kb]);
  });
});
