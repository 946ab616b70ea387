import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestConfig } from '../support/config';
import { signInToConsole } from '../support/console';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

/**
 * Issue 28 (trust boundaries, round three): the low findings that need the app but no runs (#6, #8/#13,
 * #10, #12, #15). Each test names the finding it covers. The stall findings (#1, #7) are in stall-resistance.test.ts.
 */
const baseConfig = buildTestConfig();
const ctx = useTestStack({
  label: __filename,
  worker: false,
  config: { limits: { ...baseConfig.limits, testBatchMessagesPerDay: 10, testBatchCallbackMessagesPerDay: 4 } },
});
const base = () => ctx.stack.baseUrl;

const FRAMING_HEADERS = {
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

describe('#12: tool endpoints carry no credentials in their query', () => {
  it('refuses a tool endpoint with a secret-looking query parameter, naming it; stores nothing', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    const tool = (endpoint: string) => ({ name: 'lookup', description: 'Look up an order', endpoint });
    for (const [endpoint, param] of [
      ['https://tools.example.com/q?api_key=SECRET123', 'api_key'],
      ['https://tools.example.com/q?region=eu&accessToken=abc', 'accessToken'],
      ['https://tools.example.com/q?ref=sk_9fQ2xL7pRt4ZbW8mNc3V', 'ref'],
    ] as const) {
      await assert.rejects(
        ctx.stack.services.agents.createAgent({ accountId, livemode: false, config: { name: `Agent ${param}`, tools: [tool(endpoint)] } }),
        (err: any) => err.code === 'parameter_invalid' && err.param === 'tools.0.endpoint' && err.message.includes(`'${param}'`) && /Service-Signature/.test(err.message),
      );
    }
    const listed = await apiClient(base(), apiKey)('GET', '/v1/agents');
    assert.deepEqual(listed.body.data, [], 'no agent stored, so no endpoint ever shown');
    // An endpoint with ordinary parameters is fine.
    const ok = await ctx.stack.services.agents.createAgent({ accountId, livemode: false, config: { name: 'Plain', tools: [tool('https://tools.example.com/q?region=eu&format=json')] } });
    assert.equal((await apiClient(base(), apiKey)('GET', `/v1/agents/${ok.id}`)).status, 200);
  });
});

describe('#6: console document upload answers 400 for what is not a document', () => {
  it('answers 400 for a malformed X-Filename and for a form or JSON body, in the console error format', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const kb = await apiClient(base(), apiKey)('POST', '/v1/knowledge_bases', { name: 'Docs' });
    const session = await signInToConsole(base(), apiKey);
    const url = `${base()}/console/knowledge/${kb.body.id}/documents`;
    const headers = { cookie: session.cookie, origin: base(), 'x-csrf-token': session.csrf, accept: 'application/json' };
    const badName = await fetch(url, { method: 'POST', headers: { ...headers, 'x-filename': '%E0%A4%A', 'content-type': 'text/plain' }, body: 'hello' });
    assert.equal(badName.status, 400, await badName.clone().text());
    assert.equal(((await badName.json()) as any).error.code, 'parameter_invalid');
    const form = await session.post(`/console/knowledge/${kb.body.id}/documents`, { file: 'hello' }, { accept: 'application/json' });
    assert.equal(form.status, 400, form.text);
    const json = await session.postJson(`/console/knowledge/${kb.body.id}/documents`, { _csrf: session.csrf, file: 'hello' });
    assert.equal(json.status, 400, json.text);
    assert.match(json.text, /not a form or JSON/);
    const sources = await apiClient(base(), apiKey)('GET', `/v1/knowledge_bases/${kb.body.id}/sources`);
    assert.deepEqual(sources.body.data, [], 'nothing added');
  });
});

describe('#15: every HTML page carries the framing and sniffing headers', () => {
  it('sends them on console pages, citation pages, short-link pages and the API docs', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const session = await signInToConsole(base(), apiKey);
    const pages: [string, Record<string, string>][] = [
      ['/console/sign-in', {}],
      ['/console/agents', { cookie: session.cookie }],
      ['/console/no-such-page', { cookie: session.cookie }],
      ['/c/not-a-real-token', {}],
      ['/docs', {}],
      ['/l/0123456789', {}],
    ];
    for (const [pathname, headers] of pages) {
      const res = await fetch(`${base()}${pathname}`, { headers, redirect: 'manual' });
      await res.arrayBuffer();
      for (const [name, value] of Object.entries(FRAMING_HEADERS)) assert.equal(res.headers.get(name), value, `${pathname} ${res.status}: ${name}`);
    }
  });
});

describe('#10: short links are not an open redirect', () => {
  it('shows a test-mode link\'s destination, and a live link\'s off the account\'s verified domains, instead of redirecting', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const links = ctx.stack.services.shortLinks;
    const follow = (code: string) => fetch(`${base()}/l/${code}`, { redirect: 'manual' });
    for (const livemode of [false, true]) {
      const { code } = await links.createShortLink({ accountId, livemode, runId: null, conversationId: null, url: 'https://phish.example/login?next=%2F' });
      const res = await follow(code);
      const page = await res.text();
      assert.equal(res.status, 200, `livemode ${livemode}`);
      assert.equal(res.headers.get('location'), null, 'no redirect');
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(page, /data-host>phish\.example</);
      assert.match(page, /href="https:\/\/phish\.example\/login\?next=%2F" rel="noopener noreferrer nofollow"/);
      assert.equal(/Test mode link/.test(page), !livemode);
      assert.doesNotMatch(page, /<script|http-equiv="refresh"/i, 'nothing moves on by itself');
      assert.equal((await links.getShortLink({ code }))?.clicks, 1, 'the visit is counted');
    }
    // The service's own pages (a citation page) are not another site: redirected in either mode.
    const own = `${ctx.stack.config.http.publicBaseUrl.replace(/\/+$/, '')}/c/abc`;
    const { code } = await links.createShortLink({ accountId, livemode: false, runId: null, conversationId: null, url: own });
    const res = await follow(code);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), own);
  });

  it("redirects a live link to a domain the account proved (a subdomain too), never a test link or another account's", async () => {
    const { accountId } = await ctx.stack.newAccount();
    const other = await ctx.stack.newAccount();
    const domain = await ctx.stack.services.emailDomains.addDomain({ accountId, livemode: true, domain: 'shop.example' });
    // The DNS proof has its own test (email-trust-boundaries.test.ts): here the domain is marked verified.
    await ctx.stack.database.db.updateTable('email_domains').set({ verified_at: new Date() }).where('id', '=', domain.id).execute();
    const links = ctx.stack.services.shortLinks;
    const landing = async (owner: string, livemode: boolean, url: string) => {
      const { code } = await links.createShortLink({ accountId: owner, livemode, runId: null, conversationId: null, url });
      const res = await fetch(`${base()}/l/${code}`, { redirect: 'manual' });
      await res.arrayBuffer();
      return res.status === 302 ? res.headers.get('location') : res.status;
    };
    assert.equal(await landing(accountId, true, 'https://shop.example/returns'), 'https://shop.example/returns');
    assert.equal(await landing(accountId, true, 'https://help.shop.example/faq'), 'https://help.shop.example/faq');
    assert.equal(await landing(accountId, true, 'https://shop.example.evil.test/'), 200, 'a look-alike host is shown first');
    assert.equal(await landing(accountId, false, 'https://shop.example/returns'), 200, 'a test link is shown first');
    assert.equal(await landing(other.accountId, true, 'https://shop.example/returns'), 200, "another account's proof counts for nothing");
  });
});

describe('#13: test-mode batch volume and status callbacks are capped per account', () => {
  let seq = 0;
  const recipients = (n: number) => Array.from({ length: n }, () => ({ to: `+1415555${String(7000 + ++seq).padStart(4, '0')}` }));
  const queued = async (accountId: string) => (await ctx.stack.database.db.selectFrom('messages').select('id').where('account_id', '=', accountId).execute()).length;

  it('refuses a test batch past the daily volume with 429 and Retry-After (422 when one batch alone is over), queuing nothing; live mode is not capped', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    await ctx.stack.services.senders.registerSender({ accountId, livemode: false, sender: 'Quota1' });
    const call = apiClient(base(), apiKey);
    assert.equal((await call('POST', '/v1/message_batches', { from: 'Quota1', body: 'Hi', recipients: recipients(6) })).status, 202);
    const over = await call('POST', '/v1/message_batches', { from: 'Quota1', body: 'Hi', recipients: recipients(5) });
    assert.equal(over.status, 429, JSON.stringify(over.body));
    assert.equal(over.body.error.code, 'rate_limited');
    assert.equal(over.body.error.param, 'recipients');
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(retryAfter > 86_000 && retryAfter <= 86_400, `Retry-After ${retryAfter}`);
    assert.equal(await queued(accountId), 6, 'the refused batch queued nothing');
    assert.equal((await call('POST', '/v1/message_batches', { from: 'Quota1', body: 'Hi', recipients: recipients(4) })).status, 202, 'up to the limit');
    const alone = await call('POST', '/v1/message_batches', { from: 'Quota1', body: 'Hi', recipients: recipients(11) });
    assert.equal(alone.status, 422);
    assert.equal(alone.body.error.code, 'account_limit_reached');

    const { secret: liveKey } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'live' });
    await ctx.stack.services.senders.registerSender({ accountId, livemode: true, sender: 'Quota1L' });
    const live = await apiClient(base(), liveKey)('POST', '/v1/message_batches', { from: 'Quota1L', body: 'Hi', recipients: recipients(11) });
    assert.equal(live.status, 202, JSON.stringify(live.body));
  });

  it('caps test batch messages with a status_callback tighter (each makes about three signed POSTs)', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    await ctx.stack.services.senders.registerSender({ accountId, livemode: false, sender: 'Quota2' });
    const call = apiClient(base(), apiKey);
    const status_callback = 'https://hooks.example.com/status';
    assert.equal((await call('POST', '/v1/message_batches', { from: 'Quota2', body: 'Hi', recipients: recipients(3), status_callback })).status, 202);
    const over = await call('POST', '/v1/message_batches', { from: 'Quota2', body: 'Hi', recipients: recipients(2), status_callback });
    assert.equal(over.status, 429, JSON.stringify(over.body));
    assert.equal(over.body.error.param, 'status_callback');
    assert.equal((await call('POST', '/v1/message_batches', { from: 'Quota2', body: 'Hi', recipients: recipients(2) })).status, 202, 'without a callback, within the volume');
    assert.equal(await queued(accountId), 5);
  });
});
