import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { verifySignatureHeader } from '../../src/domain/signature';
import { apiClient, type ApiClient } from '../support/http';
import { startReceiver } from '../support/receiver';
import { useTestStack } from '../support/stack';
import { startSite, waitForSource } from './knowledge-helpers';

const FIXTURES = path.resolve(__dirname, '../fixtures/knowledge');

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });

async function setup() {
  const { apiKey, accountId } = await ctx.stack.newAccount();
  const call = apiClient(ctx.stack.baseUrl, apiKey);
  const kb = (await call('POST', '/v1/knowledge_bases', { name: 'Test base' })).body.id as string;
  return { call, kb, apiKey, accountId };
}

const query = (call: ApiClient, kb: string, q: string, extra: object = {}) => call('POST', `/v1/knowledge_bases/${kb}/query`, { query: q, ...extra });

async function upload(apiKey: string, filename: string, data: Buffer, type = 'application/octet-stream') {
  const form = new FormData();
  form.append('file', new Blob([data], { type }), filename);
  const res = await fetch(`${ctx.stack.baseUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

describe('url sources', () => {
  it('crawls linked pages within host and path prefix, honours robots.txt, keeps page urls with anchors', async () => {
    const site = await startSite({
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /docs/private/\n' },
      '/docs/': {
        body: page('Docs home', `<nav><a href="/docs/setup.html">Setup</a> <a href="/docs/private/secret.html">Secret</a> <a href="/blog/news.html">Blog</a> <a href="https://example.invalid/x">Elsewhere</a></nav>
          <main><h1>Welcome</h1><p>These docs explain the espresso machine.</p></main>`),
      },
      '/docs/setup.html': {
        body: page('Setup guide', `<main><h1 id="setup">Setup</h1><h2 id="grinder">Grinder settings</h2><p>Set the burr grinder to a fine setting for espresso shots.</p>
          <p><a href="/docs/">Back</a> <a href="/docs/deep/one.html">Deeper</a></p></main>`),
      },
      '/docs/deep/one.html': { body: page('Deep page', '<p>Descaling uses citric acid.</p>') },
      '/docs/private/secret.html': { body: page('Secret', '<p>The vault combination is 4711.</p>') },
      '/blog/news.html': { body: page('News', '<p>Blog announcement about bananas.</p>') },
    });
    try {
      const { call, kb } = await setup();
      const src = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'url', url: `${site.url}/docs/`, metadata: { site: 'docs' } });
      assert.equal(src.status, 202);
      assert.equal(src.body.url, `${site.url}/docs/`);
      const ready = await waitForSource(call, kb, src.body.id, 'ready');
      assert.ok(ready.passage_count >= 3);

      const grinder = await query(call, kb, 'grinder setting for espresso');
      assert.equal(grinder.body.results[0].url, `${site.url}/docs/setup.html#grinder`);
      assert.equal(grinder.body.results[0].title, 'Setup guide › Setup › Grinder settings');
      assert.match(grinder.body.results[0].snippet, /burr grinder/);
      assert.equal((await query(call, kb, 'citric acid descaling')).body.results[0].url, `${site.url}/docs/deep/one.html`);
      assert.deepEqual((await query(call, kb, 'vault combination')).body.results, []);
      assert.deepEqual((await query(call, kb, 'bananas announcement')).body.results, []);
      assert.ok(!site.fetched.includes('/docs/private/secret.html'), 'robots.txt disallowed page fetched');
      assert.ok(!site.fetched.includes('/blog/news.html'), 'out-of-scope page fetched');
      assert.ok(site.fetched.includes('/robots.txt'));
    } finally {
      await site.close();
    }
  });

  it('marks an unreachable start page failed with source_unreachable and emits knowledge.source.failed', async () => {
    const { call, kb, accountId } = await setup();
    const dead = await startSite({});
    const url = `${dead.url}/gone/`;
    await dead.close();
    const src = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'url', url });
    const failed = await waitForSource(call, kb, src.body.id, 'failed');
    assert.equal(failed.error.code, 'source_unreachable');
    assert.equal(failed.version, null);
    assert.equal(failed.passage_count, 0);
    const events = await ctx.stack.database.db.selectFrom('events').select(['type', 'data']).where('account_id', '=', accountId).execute();
    assert.deepEqual(events.map((e) => e.type), ['knowledge.source.failed']);
    assert.equal((events[0]!.data as any).error.code, 'source_unreachable');
    // Nothing is searchable and nothing is indexing: an empty answer, not a 409.
    assert.deepEqual((await query(call, kb, 'anything')).body.results, []);
  });

  it('re-syncs beside the live version: queries see the old passages until the new version swaps in', async () => {
    let release: () => void = () => {};
    const site = await startSite({ '/kb/': { body: page('Plans', '<p>The alpha plan costs ten euros.</p>') } });
    try {
      const { call, kb } = await setup();
      const src = (await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'url', url: `${site.url}/kb/`, refresh: 'manual' })).body.id;
      await waitForSource(call, kb, src, 'ready');
      const gate = new Promise<void>((r) => (release = r));
      site.pages['/kb/'] = { body: page('Plans', '<p>The beta plan costs twelve euros.</p>'), before: () => gate };
      const re = await call('POST', `/v1/knowledge_bases/${kb}/sources/${src}/reindex`);
      assert.equal(re.status, 202);
      assert.equal(re.body.status, 'indexing');
      await new Promise((r) => setTimeout(r, 300));
      const during = await query(call, kb, 'how much does the plan cost');
      assert.equal(during.status, 200);
      assert.match(during.body.results[0].snippet, /alpha plan/);
      assert.equal((await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body.version, 1);
      release();
      await waitForSource(call, kb, src, 'ready', (s) => s.version === 2);
      const afterSwap = await query(call, kb, 'how much does the plan cost');
      assert.equal(afterSwap.body.results.length, 1);
      assert.match(afterSwap.body.results[0].snippet, /beta plan/);
      const passages = await ctx.stack.database.db.selectFrom('knowledge_passages').select('version').where('source_id', '=', src).execute();
      assert.deepEqual([...new Set(passages.map((p) => p.version))], [2]);
    } finally {
      release();
      await site.close();
    }
  });
});

describe('document sources', () => {
  const fixtures = [
    { file: 'kettle-manual.pdf', type: 'application/pdf', format: 'pdf', question: 'how long is the kettle warranty', expect: /two year warranty/, title: 'Kettle manual' },
    { file: 'handbook.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', format: 'docx', question: 'how many days of paid holiday', expect: /twenty-five days/, title: 'Employee handbook › Employee handbook › Holidays' },
    { file: 'faq.html', type: 'text/html', format: 'html', question: 'tyre pressure psi', expect: /80 and 100 psi/, title: 'Bicycle FAQ › Bicycle FAQ › Tyre pressure' },
    { file: 'garden.md', type: 'text/markdown', format: 'markdown', question: 'when to water tomatoes', expect: /twice a week/, title: 'Garden guide › Garden guide › Watering tomatoes' },
    { file: 'store-notes.txt', type: 'text/plain', format: 'text', question: 'gluten-free bread days', expect: /Tuesdays and Fridays/, title: 'store-notes' },
  ];
  for (const f of fixtures) {
    it(`ingests ${f.format} (${f.file}) and answers from it`, async () => {
      const { call, kb, apiKey } = await setup();
      const up = await upload(apiKey, f.file, fs.readFileSync(path.join(FIXTURES, f.file)), f.type);
      assert.equal(up.status, 201, JSON.stringify(up.body));
      assert.match(up.body.id, /^file_/);
      assert.equal(up.body.format, f.format);
      assert.equal(up.body.filename, f.file);
      assert.equal((await call('GET', `/v1/files/${up.body.id}`)).body.bytes, up.body.bytes);
      const src = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'document', file_id: up.body.id });
      assert.equal(src.status, 202);
      assert.equal(src.body.file_id, up.body.id);
      await waitForSource(call, kb, src.body.id, 'ready');
      const res = await query(call, kb, f.question);
      assert.match(res.body.results[0].snippet, f.expect);
      assert.equal(res.body.results[0].title, f.title);
      assert.equal(res.body.results[0].source_id, src.body.id);
    });
  }

  it('refuses anything else with 422 unsupported_file and stores nothing', async () => {
    const { call, apiKey, kb } = await setup();
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const zip = fs.readFileSync(path.join(FIXTURES, 'handbook.docx'));
    for (const [name, data, type] of [
      ['photo.png', png, 'image/png'],
      ['sheet.xlsx', zip, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['data.json', Buffer.from('{"a":1}'), 'application/json'],
      ['broken.pdf', Buffer.from('%PDF-1.4\nthis is not really a pdf'), 'application/pdf'],
      ['empty.txt', Buffer.alloc(0), 'text/plain'],
    ] as const) {
      const res = await upload(apiKey, name, data, type);
      assert.equal(res.status, 422, name);
      assert.equal(res.body.error.code, 'unsupported_file', name);
      assert.equal(res.body.error.type, 'unprocessable_error');
    }
    assert.deepEqual((await call('GET', '/v1/files')).body.data, []);
    const missing = await fetch(`${ctx.stack.baseUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: new FormData() });
    assert.equal(missing.status, 400);
    // A file_id that names no file: 422 naming it (a 404 under /v1/knowledge_bases/{id} speaks of the base), nothing stored.
    const noFile = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'document', file_id: 'file_missing' });
    assert.equal(noFile.status, 422, JSON.stringify(noFile.body));
    assert.equal(noFile.body.error.param, 'file_id');
    assert.match(noFile.body.error.message, /no such file: 'file_missing'/);
    assert.deepEqual((await call('GET', `/v1/knowledge_bases/${kb}/sources`)).body.data, []);
  });
});

describe('api sources', () => {
  it('queries the endpoint at answer time, signed, and ranks its results with the indexed passages', async () => {
    const { call, kb, apiKey } = await setup();
    const endpoint = await startReceiver((req) => {
      const body = JSON.parse(req.rawBody.toString() || '{}');
      if (body.probe) return { status: 200, body: { results: [] } };
      return {
        status: 200,
        body: { results: [
          { title: 'Order 1234 status', content: 'Order 1234 shipped yesterday and arrives on Friday.', url: 'https://shop.example.com/orders/1234' },
          { title: 'Unrelated', content: 'Our office cat is called Biscuit.' },
        ] },
      };
    });
    try {
      await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: [{ title: 'Shipping policy', content: 'Orders ship within two business days.' }] });
      const src = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'api', url: `${endpoint.url}/search`, timeout_ms: 2000 });
      assert.equal(src.status, 202);
      const ready = await waitForSource(call, kb, src.body.id, 'ready');
      assert.equal(ready.timeout_ms, 2000);
      assert.equal(ready.passage_count, 0);
      const sources = (await call('GET', `/v1/knowledge_bases/${kb}/sources`)).body.data;
      for (const s of sources) await waitForSource(call, kb, s.id, 'ready');

      const res = await query(call, kb, 'when does order 1234 arrive', { top_k: 10 });
      assert.equal(res.status, 200);
      assert.equal(res.body.results[0].source_id, src.body.id);
      assert.equal(res.body.results[0].url, 'https://shop.example.com/orders/1234');
      assert.ok(res.body.results[0].score > 0 && res.body.results[0].score <= 1);
      assert.ok(!res.body.results.some((r: { title: string }) => r.title === 'Unrelated'));

      const secret = (await call('GET', '/v1/account')).body.signing_secret as string;
      const asked = endpoint.requests.filter((r) => !JSON.parse(r.rawBody.toString()).probe);
      assert.ok(asked.length >= 1);
      const last = asked[asked.length - 1]!;
      assert.ok(verifySignatureHeader(secret, last.rawBody, String(last.headers['service-signature'])));
      assert.deepEqual(JSON.parse(last.rawBody.toString()), { query: 'when does order 1234 arrive', top_k: 10, knowledge_base_id: kb, source_id: src.body.id });
      assert.ok(apiKey);
    } finally {
      await endpoint.close();
    }
  });

  it('answers without an endpoint that times out, and fails a source whose endpoint does not answer the probe', async () => {
    const { call, kb } = await setup();
    let slow = false;
    const endpoint = await startReceiver(() => (slow ? { status: 200, delayMs: 3000, body: { results: [{ title: 'Late', content: 'late parcel answer' }] } } : { status: 200, body: { results: [] } }));
    try {
      const rec = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: [{ title: 'Parcel lockers', content: 'Parcel lockers keep parcels for five days.' }] });
      const api = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'api', url: endpoint.url, timeout_ms: 300 });
      await waitForSource(call, kb, rec.body.id, 'ready');
      await waitForSource(call, kb, api.body.id, 'ready');
      slow = true;
      const res = await query(call, kb, 'how long are parcels kept late');
      assert.equal(res.status, 200);
      // Had the query waited for the endpoint, its 'Late' passage would be among the results.
      assert.deepEqual(res.body.results.map((r: { source_id: string }) => r.source_id), [rec.body.id]);

      const broken = await startReceiver(() => ({ status: 500 }));
      const bad = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'api', url: broken.url });
      const failed = await waitForSource(call, kb, bad.body.id, 'failed');
      assert.equal(failed.error.code, 'source_unreachable');
      await broken.close();
    } finally {
      await endpoint.close();
    }
  });
});
