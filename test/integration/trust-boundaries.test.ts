import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import * as addTestSigningSecret from '../../src/db/migrations/20261126T101500-add-test-signing-secret';
import { verifySignatureHeader } from '../../src/domain/signature';
import { ask, openConversation, seedAgent } from '../support/agents';
import { consoleRequest as request, consoleSession, signInToConsole, type ConsoleRequestOptions } from '../support/console';
import { apiClient } from '../support/http';
import { startReceiver } from '../support/receiver';
import { useTestStack } from '../support/stack';
import { json, useToolServer } from '../support/tool-server';
import { waitForSource } from './knowledge-helpers';

/**
 * Issue 18 (trust boundaries, round two): secrets per mode, and a console whose sessions follow the key
 * or user that opened them. Each test names the finding it covers.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), 'trust-boundaries-'));
const ctx = useTestStack({ label: __filename, config: { dataDir, console: { devSignIn: true } } });
const tools = useToolServer();

const base = () => ctx.stack.baseUrl;
/** A console request to this file's stack (test/support/console.ts). */
const consoleRequest = (pathname: string, opts?: ConsoleRequestOptions) => request(base(), pathname, opts);

/** A GET with any Host and extra headers (fetch will not send a foreign Host), from loopback. */
function rawGet(pathname: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const url = new URL(`${base()}${pathname}`);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const sessionRows = async () => Number((await sql<{ n: string }>`select count(*) as n from console_sessions`.execute(ctx.stack.database.db)).rows[0]!.n);

describe('H1: signing secrets per mode', () => {
  it('gives a test key and a live key of one account different secrets; each key rotates only its own mode\'s', async () => {
    const { accountId, apiKey: testKey } = await ctx.stack.newAccount('Two modes');
    const { secret: liveKey } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'live' });
    const asTest = apiClient(base(), testKey);
    const asLive = apiClient(base(), liveKey);
    const test0 = (await asTest('GET', '/v1/account')).body.signing_secret;
    const live0 = (await asLive('GET', '/v1/account')).body.signing_secret;
    assert.match(test0, /^whsec_/);
    assert.match(live0, /^whsec_/);
    assert.notEqual(test0, live0, 'a test key never sees the live secret');

    const rotated = await asTest('POST', '/v1/account/rotate_signing_secret', { grace_period_seconds: 0 });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.signing_secret, test0);
    assert.equal((await asLive('GET', '/v1/account')).body.signing_secret, live0, 'rotating with a test key leaves the live secret alone');
    assert.equal((await asLive('GET', '/v1/account')).body.previous_signing_secret_expires_at, null);

    const liveRotated = await asLive('POST', '/v1/account/rotate_signing_secret', {});
    assert.notEqual(liveRotated.body.signing_secret, live0);
    assert.ok(liveRotated.body.previous_signing_secret_expires_at);
    const testNow = (await asTest('GET', '/v1/account')).body;
    assert.equal(testNow.signing_secret, rotated.body.signing_secret, 'rotating with a live key leaves the test secret alone');
    assert.equal(testNow.previous_signing_secret_expires_at, null);
  });

  it('signs a test run\'s tool call and a test api source\'s queries with the test secret only; live ones get the live secret', async () => {
    tools.handle((req, res) => json(res, 200, { status: 'shipped', order_id: req.body.arguments.order_id }));
    const f = await seedAgent(ctx.stack, {
      tools: [{
        name: 'lookup_order',
        description: 'Look up the status of an order by its order number',
        parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{5}$', description: 'order number' } }, required: ['order_id'] },
        endpoint: `${tools.url}/orders`,
        timeout_ms: 2000,
      }],
    });
    const { secret: liveKey } = await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'live' });
    const testSecret = (await f.call('GET', '/v1/account')).body.signing_secret;
    const liveSecret = (await apiClient(base(), liveKey)('GET', '/v1/account')).body.signing_secret;

    const before = tools.requests.length;
    const { run } = await ask(f, await openConversation(f), 'Where is my order 12345?');
    assert.equal(run.tool_calls[0]?.tool, 'lookup_order', JSON.stringify(run));
    const sent = tools.requests.slice(before);
    assert.equal(sent.length, 1);
    const header = String(sent[0]!.headers['service-signature']);
    assert.ok(verifySignatureHeader(testSecret, sent[0]!.raw, header), 'the test secret verifies a test run\'s tool call');
    assert.ok(!verifySignatureHeader(liveSecret, sent[0]!.raw, header), 'the live secret does not');

    const receiver = await startReceiver(() => ({ status: 200, body: { results: [{ title: 'Orders', content: 'Orders ship within two days.' }] } }));
    try {
      const src = await f.call('POST', `/v1/knowledge_bases/${f.knowledgeBaseId}/sources`, { type: 'api', url: `${receiver.url}/search`, refresh: 'manual' });
      assert.equal(src.status, 202, JSON.stringify(src.body));
      await waitForSource(f.call, f.knowledgeBaseId, src.body.id, 'ready');
      const query = await f.call('POST', `/v1/knowledge_bases/${f.knowledgeBaseId}/query`, { query: 'when do orders ship?' });
      assert.equal(query.status, 200, JSON.stringify(query.body));
      assert.ok(receiver.requests.length >= 2, 'the probe and the query');
      for (const r of receiver.requests) {
        const h = String(r.headers['service-signature']);
        assert.ok(verifySignatureHeader(testSecret, r.rawBody, h), 'the test secret verifies a test source\'s query');
        assert.ok(!verifySignatureHeader(liveSecret, r.rawBody, h), 'the live secret does not');
      }
    } finally {
      await receiver.close();
    }
    // Live objects (which must use https endpoints, so not reachable here) sign with what a live key sees.
    assert.deepEqual(await ctx.stack.services.accounts.getSigningSecret({ accountId: f.accountId, livemode: true }), [liveSecret]);
    assert.deepEqual(await ctx.stack.services.accounts.getSigningSecret({ accountId: f.accountId, livemode: false }), [testSecret]);
  });

  it('migration: an existing account keeps its secret as the live one and gets a fresh test one', async () => {
    const db = ctx.stack.database.db;
    const { accountId, apiKey: testKey } = await ctx.stack.newAccount('Before the migration');
    const { secret: liveKey } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'live' });
    // Back to one secret per account (the migration's down), with the account's secret as it was.
    const migrationDb = db as unknown as Parameters<typeof addTestSigningSecret.up>[0];
    await addTestSigningSecret.down(migrationDb);
    try {
      await sql`update accounts set signing_secret = 'whsec_the_old_one' where id = ${accountId}`.execute(db);
    } finally {
      await addTestSigningSecret.up(migrationDb);
    }
    const live = (await apiClient(base(), liveKey)('GET', '/v1/account')).body.signing_secret;
    const test = (await apiClient(base(), testKey)('GET', '/v1/account')).body.signing_secret;
    assert.equal(live, 'whsec_the_old_one');
    assert.match(test, /^whsec_[A-Za-z0-9_-]{32}$/);
    const others = await sql<{ n: string }>`select count(*) as n from accounts where test_signing_secret is null or test_signing_secret = signing_secret`.execute(db);
    assert.equal(Number(others.rows[0]!.n), 0, 'every account has a test secret of its own');
  });
});

describe('M1: dev sign-in is a one-time link, nothing signs in by itself', () => {
  it('opens no session for a cookieless GET from loopback, whatever its Host or proxy headers (DNS rebinding)', async () => {
    // The development account's key is where the old silent sign-in looked for it.
    const { apiKey } = await ctx.stack.newAccount('Development');
    writeFileSync(path.join(dataDir, 'dev-api-key'), `${apiKey}\n`);
    const port = new URL(base()).port;
    const rows = await sessionRows();
    const variants: Record<string, string>[] = [
      { host: `evil.example:${port}` },
      { host: `127.0.0.1:${port}` },
      { host: `localhost:${port}` },
      { host: `127.0.0.1:${port}`, forwarded: 'for=203.0.113.9' },
      { host: `127.0.0.1:${port}`, 'x-real-ip': '203.0.113.9' },
      { host: `127.0.0.1:${port}`, via: '1.1 proxy' },
    ];
    for (const headers of variants) {
      const res = await rawGet('/console/agents', headers);
      assert.equal(res.status, 303, JSON.stringify(headers));
      assert.equal(res.headers.location, '/console/sign-in');
      assert.ok(!(res.headers['set-cookie'] ?? []).some((c) => c.startsWith('converse_console=')), `no session cookie for ${JSON.stringify(headers)}`);
    }
    assert.equal(await sessionRows(), rows, 'no session row without a sign-in');
  });

  it('signs a browser in once with the link npm start prints; a used, unknown or revoked key\'s link signs nobody in', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Development');
    const link = await ctx.stack.services.consoleSessions.createSignInLink({ secret: apiKey });
    const opened = await consoleRequest(`/console/sign-in/${link.token}`);
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get('location'), '/console');
    assert.ok(opened.cookie);
    assert.equal((await consoleRequest('/console/agents', { cookie: opened.cookie })).status, 200);

    const again = await consoleRequest(`/console/sign-in/${link.token}`);
    assert.equal(again.status, 410, 'a link signs in once');
    assert.equal(again.cookie, undefined);
    assert.equal((await consoleRequest('/console/sign-in/not-a-token')).status, 410);

    const { key, secret } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'test' });
    const unused = await ctx.stack.services.consoleSessions.createSignInLink({ secret });
    await ctx.stack.services.accounts.revokeApiKey({ accountId, keyId: key.id });
    assert.equal((await consoleRequest(`/console/sign-in/${unused.token}`)).status, 410, 'a revoked key\'s link is dead');

    const { secret: liveKey } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'live' });
    await assert.rejects(ctx.stack.services.consoleSessions.createSignInLink({ secret: liveKey }), /test keys only/);
  });
});

describe('M2: console sessions end with the key or user that opened them', () => {
  it('ends a key\'s sessions at its revocation: pages and key minting are refused at once', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Revoked Co');
    const s = await signInToConsole(base(), apiKey);
    assert.equal((await s.get('/console/agents')).status, 200);
    const keyId = (await ctx.stack.services.accounts.authenticate(apiKey)).keyId;
    await ctx.stack.services.accounts.revokeApiKey({ accountId, keyId });

    const page = await s.get('/console/agents');
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), '/console/sign-in');
    const keysBefore = (await ctx.stack.services.accounts.listApiKeys({ accountId })).length;
    const mint = await s.post('/console/keys', { name: 'after revocation' });
    assert.equal(mint.status, 401);
    assert.equal((await ctx.stack.services.accounts.listApiKeys({ accountId })).length, keysBefore, 'no key minted');
  });

  it('ends a console user\'s sessions when the user is disabled, and refuses their password after', async () => {
    const { accountId } = await ctx.stack.newAccount('Users Co');
    const user = await ctx.stack.services.consoleSessions.createUser({ accountId, email: 'lead@users.example', password: 'correct horse battery' });
    const signedIn = await consoleRequest('/console/sign-in', { form: { email: 'lead@users.example', password: 'correct horse battery' }, headers: { origin: base() } });
    assert.equal(signedIn.status, 303);
    const s = await consoleSession(base(), signedIn.cookie!);
    assert.equal((await s.get('/console/agents')).status, 200);

    await ctx.stack.services.consoleSessions.disableUser({ accountId, userId: user.id });
    assert.equal((await s.get('/console/agents')).status, 303);
    assert.equal((await s.post('/console/keys', { name: 'x' })).status, 401);
    const again = await consoleRequest('/console/sign-in', { form: { email: 'lead@users.example', password: 'correct horse battery' }, headers: { origin: base() } });
    assert.equal(again.status, 401);
    assert.equal(again.cookie, undefined);
  });
});

describe('M3: a console session acts in its key\'s mode only, keys included', () => {
  it('a test-mode session neither lists, revokes nor creates live keys', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Modes Co');
    const { key: liveKey, secret: liveSecret } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'live', name: 'production' });
    const s = await signInToConsole(base(), apiKey);
    const keys = await s.get('/console/keys');
    assert.ok(!keys.text.includes(liveKey.id) && !keys.text.includes(`sk_live_…${liveKey.last4}`), 'the live key is not listed');
    assert.ok(!keys.text.includes('production'));

    const revoke = await s.post(`/console/keys/${liveKey.id}/revoke`);
    assert.equal(revoke.status, 404);
    assert.equal((await apiClient(base(), liveSecret)('GET', '/v1/account')).status, 200, 'the live key still works');

    const created = await s.post('/console/keys', { name: 'made in test mode' });
    assert.equal(created.status, 200);
    assert.match(created.text, /sk_test_[A-Za-z0-9]{24,}/);
    assert.doesNotMatch(created.text, /sk_live_[A-Za-z0-9]{24,}/);
    const modes = (await ctx.stack.services.accounts.listApiKeys({ accountId })).filter((k) => k.name === 'made in test mode').map((k) => k.mode);
    assert.deepEqual(modes, ['test']);
  });
});

describe('LOW: console hardening', () => {
  it('refuses a sign-in posted from another site, from an opaque (null) origin or with a malformed Origin (login CSRF)', async () => {
    const { apiKey } = await ctx.stack.newAccount('Csrf Co');
    const rows = await sessionRows();
    for (const origin of ['https://evil.example', 'null', 'http://[', 'not a url']) {
      const res = await consoleRequest('/console/sign-in', { form: { secret_key: apiKey }, headers: { origin } });
      assert.equal(res.status, 403, origin);
      assert.equal(res.cookie, undefined, origin);
    }
    const crossSite = await consoleRequest('/console/sign-in', { form: { secret_key: apiKey }, headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(crossSite.status, 403);
    assert.equal(await sessionRows(), rows);
    assert.equal((await consoleRequest('/console/sign-in', { form: { secret_key: apiKey }, headers: { origin: base() } })).status, 303);
  });

  it('answers a session POST with a malformed Origin 403, not 500', async () => {
    const s = await signInToConsole(base(), (await ctx.stack.newAccount('Origin Co')).apiKey);
    for (const origin of ['http://[', 'not a url', 'https://evil.example']) {
      const res = await s.post('/console/keys', { name: 'x' }, { origin });
      assert.equal(res.status, 403, origin);
    }
  });

  it('sends anti-framing, no-sniff and referrer headers on console pages', async () => {
    const s = await signInToConsole(base(), (await ctx.stack.newAccount('Headers Co')).apiKey);
    for (const res of [await consoleRequest('/console/sign-in'), await s.get('/console/agents'), await s.get('/console/keys')]) {
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('referrer-policy'), 'same-origin');
    }
  });

  it('shows no banner text taken from the query string (?done=, ?error=)', async () => {
    const f = await seedAgent(ctx.stack);
    const s = await signInToConsole(base(), f.apiKey);
    const planted = 'Your account is suspended: call 555-0100';
    for (const p of [
      `/console/numbers?done=${encodeURIComponent(planted)}`,
      `/console/numbers?error=${encodeURIComponent(planted)}`,
      `/console/knowledge/${f.knowledgeBaseId}?error=${encodeURIComponent(planted)}`,
      `/console/agents/${f.agentId}?published=${encodeURIComponent(planted)}`,
    ]) {
      const page = await s.get(p);
      assert.equal(page.status, 200, p);
      assert.ok(!page.text.includes('Your account is suspended'), `${p} shows the query's text`);
    }
    // A code still names its fixed text.
    assert.match((await s.get(`/console/agents/${f.agentId}?published=1`)).text, /Published: version 1 is live/);
  });

  it('answers a knowledge base with an empty name with a form error, not 500', async () => {
    const s = await signInToConsole(base(), (await ctx.stack.newAccount('Empty Co')).apiKey);
    const res = await s.post('/console/knowledge', { name: '   ', description: '' });
    assert.equal(res.status, 422, res.text.slice(0, 300));
    assert.match(res.text, /class="error-banner"[^>]*>Give the knowledge base a name/);
  });

  it('turns only http(s) URLs of passages into links; a javascript: URL from an api source is shown as text', async () => {
    const f = await seedAgent(ctx.stack);
    const receiver = await startReceiver(() => ({
      status: 200,
      body: {
        results: [
          { title: 'Refund desk', content: 'Refunds are handled by the refund desk within 14 days.', url: 'javascript:alert(document.cookie)' },
          { title: 'Refund form', content: 'Ask for a refund with the refund form.', url: 'https://help.example.com/refund-form' },
        ],
      },
    }));
    try {
      const src = await f.call('POST', `/v1/knowledge_bases/${f.knowledgeBaseId}/sources`, { type: 'api', url: `${receiver.url}/search`, refresh: 'manual' });
      assert.equal(src.status, 202, JSON.stringify(src.body));
      await waitForSource(f.call, f.knowledgeBaseId, src.body.id, 'ready');
      const s = await signInToConsole(base(), f.apiKey);
      const page = await s.get(`/console/knowledge/${f.knowledgeBaseId}?q=refund`);
      assert.equal(page.status, 200);
      assert.match(page.text, /javascript:alert\(document\.cookie\)/, 'the URL is shown');
      assert.doesNotMatch(page.text, /href="javascript:/i, 'but never as a link');
      assert.match(page.text, /<a href="https:\/\/help\.example\.com\/refund-form"/);

      // The same in a run's panel (test chat and inbox).
      const { run } = await ask(f, await openConversation(f), 'How do refunds work at the refund desk?');
      assert.ok(run.retrieval.some((r: { url: string | null }) => r.url?.startsWith('javascript:')), JSON.stringify(run.retrieval));
      const panel = await s.get(`/console/runs/${run.id}/panel`);
      assert.equal(panel.status, 200);
      assert.match(panel.text, /javascript:alert/);
      assert.doesNotMatch(panel.text, /href="javascript:/i);
    } finally {
      await receiver.close();
    }
  });

  it('lets the test chat post only into its own agent\'s test conversations, never a customer\'s', async () => {
    const f = await seedAgent(ctx.stack);
    const other = await ctx.stack.services.agents.createAgent({ accountId: f.accountId, livemode: false, config: { name: 'Other', channels: ['chat'] } });
    const s = await signInToConsole(base(), f.apiKey);
    const customer = await openConversation(f);
    const before = (await f.call('GET', `/v1/conversations/${customer}/messages`)).body.data.length;

    const refused = await s.postJson(`/console/agents/${f.agentId}/test-chat`, { content: 'Hello from the console', conversation_id: customer });
    assert.equal(refused.status, 404, refused.text);
    assert.equal((await f.call('GET', `/v1/conversations/${customer}/messages`)).body.data.length, before, 'nothing posted to the customer');

    const first = await s.postJson(`/console/agents/${f.agentId}/test-chat`, { content: 'How long does shipping take?' });
    assert.equal(first.status, 200, first.text);
    const testConversation = JSON.parse(first.text).conversation_id as string;
    const next = await s.postJson(`/console/agents/${f.agentId}/test-chat`, { content: 'And express?', conversation_id: testConversation });
    assert.equal(next.status, 200, 'its own test conversation goes on');
    const crossAgent = await s.postJson(`/console/agents/${other.id}/test-chat`, { content: 'Hi', conversation_id: testConversation });
    assert.equal(crossAgent.status, 404, 'another agent\'s test chat is refused');
  });
});
