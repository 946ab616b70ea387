import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createApp } from '../../src/app/create-app';
import { createMetrics } from '../../src/observability/metrics';
import { silentLogger } from '../../src/observability/logger';
import { openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { signInToConsole } from '../support/console';
import { TEST_DATABASE_URL } from '../support/config';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';
import { json, lookupOrderTool, useToolServer } from '../support/tool-server';
import { visitorClient } from '../support/widget';

// Rate limits are tested on their own (below); here they stay out of the way.
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { visitorRateLimit: { perKeyPerSecond: 10_000, perVisitorPerSecond: 10_000 } } });
const tools = useToolServer();
const SHOP = 'https://shop.example';

async function createKey(f: AgentFixture, origins: string[] = [SHOP]) {
  const res = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: origins });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; key: string; allowed_origins: string[] };
}

/** Opens a conversation as a new visitor; answers its id, the visitor's token and a client carrying it. */
async function openAsVisitor(key: string, agentId: string, origin = SHOP) {
  const anon = visitorClient(ctx.stack.baseUrl, { key, origin });
  const opened = await anon('POST', '/v1/conversations', { agent_id: agentId });
  assert.equal(opened.status, 201, JSON.stringify(opened.body));
  const token = opened.body.visitor_token as string;
  return { conversationId: opened.body.id as string, token, call: visitorClient(ctx.stack.baseUrl, { key, origin, token }) };
}

describe('publishable keys: creation', () => {
  it('are made for one agent through the API, shown plainly, listed and revoked', async () => {
    const f = await seedAgent(ctx.stack);
    const key = await createKey(f, [SHOP, 'http://localhost:3000']);
    assert.match(key.key, /^pk_test_[A-Za-z0-9]{24,}$/);
    assert.match(key.id, /^pkey_/);
    assert.deepEqual(key.allowed_origins, [SHOP, 'http://localhost:3000']);
    const listed = await f.call('GET', `/v1/publishable_keys?agent_id=${f.agentId}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((k: any) => k.key), [key.key]);
    const updated = await f.call('POST', `/v1/publishable_keys/${key.id}`, { allowed_origins: ['https://www.shop.example'] });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body.allowed_origins, ['https://www.shop.example']);
  });

  it('refuse origins that are not exact scheme://host[:port] origins, and too many, changing nothing', async () => {
    const f = await seedAgent(ctx.stack);
    const bad = [
      'https://shop.example/', 'https://shop.example/checkout', 'https://*.shop.example', '*', 'shop.example', 'https://Shop.example',
      'https://shop.example:443', 'ftp://shop.example', 'https://user:pw@shop.example', 'https://shop.example?x=1', 'null', 'https://shop.example#x',
    ];
    for (const origin of bad) {
      const res = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: [origin] });
      assert.equal(res.status, 422, `${origin}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'parameter_unprocessable', origin);
    }
    const many = Array.from({ length: 10_000 }, (_, i) => `https://${i}.io`); // under the body cap: the list limit answers
    const started = Date.now();
    const tooMany = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: many });
    assert.equal(tooMany.status, 400, JSON.stringify(tooMany.body));
    assert.equal(tooMany.body.error.param, 'allowed_origins', JSON.stringify(tooMany.body));
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    const dup = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: [SHOP, SHOP] });
    assert.equal(dup.status, 422);
    const listed = await f.call('GET', '/v1/publishable_keys');
    assert.deepEqual(listed.body.data, []);
  });

  it("answer 404 for another account's agent and for an agent of the other mode", async () => {
    const f = await seedAgent(ctx.stack);
    const other = await seedAgent(ctx.stack);
    const res = await f.call('POST', '/v1/publishable_keys', { agent_id: other.agentId, allowed_origins: [SHOP] });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.param, 'agent_id');
    const { secret } = await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'live' });
    const live = apiClient(ctx.stack.baseUrl, secret);
    const liveKey = await live('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: [SHOP] });
    assert.equal(liveKey.status, 404);
    assert.equal((await f.call('GET', `/v1/publishable_keys/${(await createKey(other)).id}`)).status, 404);
  });
});

describe('publishable keys: what a visitor can do', () => {
  it('opens a chat with its agent, posts customer messages, gets the answer and reads its own conversation', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const visitor = await openAsVisitor(key, f.agentId);
    assert.match(visitor.token, /^vt_vis_/);
    const posted = await visitor.call('POST', `/v1/conversations/${visitor.conversationId}/messages`, { role: 'customer', content: 'How long does standard shipping take?' });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    assert.equal(posted.headers.get('access-control-allow-origin'), SHOP);
    assert.match(posted.headers.get('vary') ?? '', /Origin/);
    assert.equal(posted.headers.get('access-control-allow-credentials'), null);
    assert.equal(posted.body.run.status, 'completed');
    assert.match(posted.body.run.reply.content, /3 to 5 business days/);
    const transcript = await visitor.call('GET', `/v1/conversations/${visitor.conversationId}/messages`);
    assert.equal(transcript.status, 200);
    assert.deepEqual(transcript.body.data.map((m: any) => m.role), ['customer', 'agent']);
    const got = await visitor.call('GET', `/v1/conversations/${visitor.conversationId}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.channel, 'chat');
    const listed = await visitor.call('GET', '/v1/conversations');
    assert.deepEqual(listed.body.data.map((c: any) => c.id), [visitor.conversationId]);
    // The business sees it like any other conversation.
    assert.equal((await f.call('GET', `/v1/conversations/${visitor.conversationId}`)).status, 200);
  });

  it("streams the run it starts (?stream=true) as the secret-key path does", async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const visitor = await openAsVisitor(key, f.agentId);
    const streamed = await visitor.call('POST', `/v1/conversations/${visitor.conversationId}/messages?stream=true`, { role: 'customer', content: 'How do I reset my password?' });
    assert.equal(streamed.status, 200);
    assert.match(streamed.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(streamed.headers.get('access-control-allow-origin'), SHOP);
    assert.match(streamed.body, /event: run\.completed/);
  });

  it("sees only its own conversations: another visitor's, the business's own and another agent's are 404", async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const a = await openAsVisitor(key, f.agentId);
    const b = await openAsVisitor(key, f.agentId);
    assert.notEqual(a.token, b.token);
    const business = await openConversation(f);
    for (const id of [b.conversationId, business]) {
      const got = await a.call('GET', `/v1/conversations/${id}`);
      assert.equal(got.status, 404, id);
      assert.equal(got.body.error.code, 'resource_missing');
      assert.equal((await a.call('GET', `/v1/conversations/${id}/messages`)).status, 404);
      const posted = await a.call('POST', `/v1/conversations/${id}/messages`, { role: 'customer', content: 'hello' });
      assert.equal(posted.status, 404);
    }
    assert.deepEqual((await a.call('GET', '/v1/conversations')).body.data.map((c: any) => c.id), [a.conversationId]);
    // Another account's agent id (or any other agent) in the open call.
    const other = await seedAgent(ctx.stack);
    const opened = await a.call('POST', '/v1/conversations', { agent_id: other.agentId });
    assert.equal(opened.status, 404);
    assert.equal(opened.body.error.param, 'agent_id');
    assert.deepEqual((await a.call('GET', `/v1/conversations?agent_id=${other.agentId}`)).body.data, []);
    // A visitor token forged or made for another agent.
    const otherKey = await createKey(other);
    const foreign = await openAsVisitor(otherKey.key, other.agentId);
    const reused = visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: foreign.token });
    const refused = await reused('GET', '/v1/conversations');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'visitor_token_invalid');
  });

  it('cannot post as a human, skip the run, or set customer, metadata or another channel', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const v = await openAsVisitor(key, f.agentId);
    const human = await v.call('POST', `/v1/conversations/${v.conversationId}/messages`, { role: 'human', content: 'I am the desk' });
    assert.equal(human.status, 403);
    assert.equal(human.body.error.code, 'publishable_key_not_allowed');
    const silent = await v.call('POST', `/v1/conversations/${v.conversationId}/messages`, { role: 'customer', content: 'x', trigger_run: false });
    assert.equal(silent.status, 403);
    for (const body of [{ customer: { id: 'cus_1' } }, { metadata: { vip: 'yes' } }, { tags: ['vip'] }, { channel: 'sms' }]) {
      const res = await v.call('POST', '/v1/conversations', { agent_id: f.agentId, ...body });
      assert.equal(res.status, 403, JSON.stringify(body));
    }
    const transcript = await f.call('GET', `/v1/conversations/${v.conversationId}/messages`);
    assert.deepEqual(transcript.body.data, []);
  });

  it('a test-mode key never reaches live objects', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const { secret } = await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'live' });
    const live = apiClient(ctx.stack.baseUrl, secret);
    const liveAgent = await ctx.stack.services.agents.createAgent({ accountId: f.accountId, livemode: true, config: { name: 'Live', channels: ['chat'], knowledge_bases: [] } });
    await ctx.stack.services.agents.publishAgent({ accountId: f.accountId, livemode: true, agentId: liveAgent.id });
    const liveCnv = await live('POST', '/v1/conversations', { agent_id: liveAgent.id });
    assert.equal(liveCnv.status, 201, JSON.stringify(liveCnv.body));
    const v = await openAsVisitor(key, f.agentId);
    assert.equal((await v.call('GET', `/v1/conversations/${liveCnv.body.id}`)).status, 404);
    assert.equal((await v.call('POST', '/v1/conversations', { agent_id: liveAgent.id })).status, 404);
  });
});

describe('publishable keys: origins and CORS', () => {
  it('refuses a request from an origin not on the list, or with none, even with a valid key (403, no CORS header)', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    for (const origin of ['https://evil.example', 'https://shop.example.evil.example', 'http://shop.example', undefined]) {
      const call = visitorClient(ctx.stack.baseUrl, { key, origin });
      const res = await call('POST', '/v1/conversations', { agent_id: f.agentId });
      assert.equal(res.status, 403, String(origin));
      assert.equal(res.body.error.code, 'origin_not_allowed');
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    }
    const listed = await f.call('GET', `/v1/conversations?agent_id=${f.agentId}`);
    assert.deepEqual(listed.body.data, []);
  });

  it('answers a preflight from an allowed origin on the visitor routes only', async () => {
    const f = await seedAgent(ctx.stack);
    await createKey(f);
    const preflight = (path: string, origin: string, method = 'POST') =>
      fetch(`${ctx.stack.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, x-visitor-token' },
      });
    const ok = await preflight('/v1/conversations', SHOP);
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get('access-control-allow-origin'), SHOP);
    assert.match(ok.headers.get('access-control-allow-headers') ?? '', /X-Visitor-Token/);
    assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(ok.headers.get('vary') ?? '', /Origin/);
    assert.equal(ok.headers.get('access-control-allow-credentials'), null);
    const messages = await preflight('/v1/conversations/cnv_x/messages', SHOP, 'GET');
    assert.equal(messages.status, 204);

    for (const [path, origin, method] of [
      ['/v1/conversations', 'https://evil.example', 'POST'],
      ['/v1/webhook_endpoints', SHOP, 'POST'],
      ['/v1/conversations/cnv_x/close', SHOP, 'POST'],
      ['/v1/conversations/cnv_x', SHOP, 'DELETE'],
    ] as const) {
      const refused = await preflight(path, origin, method);
      assert.equal(refused.status, 403, `${method} ${path} from ${origin}`);
      assert.equal(refused.headers.get('access-control-allow-origin'), null);
    }
  });
});

/** Opens an event stream as the visitor and answers its status and first events (read for up to `ms`), then drops it. */
async function openStream(v: { token: string }, path: string, key?: string, ms = 300) {
  const controller = new AbortController();
  const res = await fetch(`${ctx.stack.baseUrl}${path}`, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), origin: SHOP, 'x-visitor-token': v.token, ...(key ? {} : { authorization: streamKey }) },
    signal: controller.signal,
  });
  let text = '';
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const stop = setTimeout(() => controller.abort(), ms);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
    } catch {
      // dropped after `ms`
    } finally {
      clearTimeout(stop);
    }
  } else {
    text = await res.text();
    controller.abort();
  }
  return { status: res.status, body: text, headers: res.headers };
}
let streamKey = '';

describe('publishable keys: the conversation stream', () => {
  it("reads the visitor's own conversation as events; another visitor's is 404", async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    streamKey = `Bearer ${key}`;
    const v = await openAsVisitor(key, f.agentId);
    const posted = await v.call('POST', `/v1/conversations/${v.conversationId}/messages`, { role: 'customer', content: 'How do I reset my password?' });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    const own = await openStream(v, `/v1/conversations/${v.conversationId}/events`, key, 1500);
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('access-control-allow-origin'), SHOP);
    assert.match(own.body, /event: conversation\.message/);
    assert.match(own.body, /How do I reset my password\?/);
    const other = await openAsVisitor(key, f.agentId);
    const refused = await openStream(other, `/v1/conversations/${v.conversationId}/events`, key);
    assert.equal(refused.status, 404, refused.body);
    assert.doesNotMatch(refused.body, /reset my password/);
  });
});

describe('publishable keys: every other operation refuses them', () => {
  it('walks every operation of the OpenAPI document: only the visitor operations accept a publishable key', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    streamKey = `Bearer ${key}`;
    const v = await openAsVisitor(key, f.agentId);
    const doc = (await (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const allowed = new Set([
      'post /v1/conversations',
      'get /v1/conversations',
      'get /v1/conversations/{id}',
      'post /v1/conversations/{id}/messages',
      'get /v1/conversations/{id}/messages',
      'get /v1/conversations/{id}/events',
      'get /v1/widget_config',
      'post /v1/conversations/{id}/feedback',
    ]);
    let walked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops).filter((m) => ['get', 'post', 'delete', 'put', 'patch'].includes(m))) {
        const op = ops[method] as { security?: unknown[] };
        const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'id' && path.startsWith('/v1/conversations') ? v.conversationId : `x_${name}`));
        // The conversation's stream stays open: its status is read, then the request is dropped.
        const res = path === '/v1/conversations/{id}/events' ? await openStream(v, concrete) : await v.call(method.toUpperCase(), concrete, method === 'get' || method === 'delete' ? undefined : {});
        const name = `${method} ${path}`;
        walked++;
        if (allowed.has(name)) {
          assert.ok(res.status !== 401 && res.status !== 403, `${name} refused a visitor: ${res.status} ${JSON.stringify(res.body)}`);
        } else if (Array.isArray(op.security) && op.security.length === 0) {
          // A public operation needs no key at all; a publishable key gains nothing there.
          assert.ok(res.status < 500, `${name}: ${res.status}`);
        } else {
          assert.ok(res.status === 401 || res.status === 403, `${name} accepted a publishable key: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    }
    assert.ok(walked > 40, `walked ${walked} operations`);
    // Nothing was changed by the refused calls: the business still has exactly the visitor's conversation.
    const cnvs = await f.call('GET', '/v1/conversations');
    assert.deepEqual(cnvs.body.data.map((c: any) => c.id), [v.conversationId]);
  });
});

describe('publishable keys: revocation', () => {
  it('a revoked key stops working at once, and its open stream ends', async () => {
    tools.handle((_req, res) => json(res, 202, { status: 'pending' }));
    const f = await seedAgent(ctx.stack, { tools: [lookupOrderTool(tools)] });
    const created = await createKey(f);
    const v = await openAsVisitor(created.key, f.agentId);
    // The run waits for the async tool result: its stream stays open until the key is revoked.
    const res = await fetch(`${ctx.stack.baseUrl}/v1/conversations/${v.conversationId}/messages?stream=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.key}`, origin: SHOP, 'x-visitor-token': v.token, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'customer', content: 'Where is my order 12345?' }),
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('requires_action')) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the stream ended before the run waited: ${text}`);
      text += Buffer.from(value!).toString('utf8');
    }
    const revoked = await f.call('POST', `/v1/publishable_keys/${created.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.revoked_at);
    const started = Date.now();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    assert.ok(Date.now() - started < 2000, `the stream ended ${Date.now() - started} ms after the revocation`);
    const after = await v.call('GET', `/v1/conversations/${v.conversationId}`);
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, 'api_key_invalid');
  });
});

describe('publishable keys: rate limits', () => {
  it('limits each visitor and each key (429 with Retry-After and the CORS header)', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const v = await openAsVisitor(key, f.agentId);
    // The same services behind an app with small limits (1 request/s per visitor: burst 2; 2/s per key: burst 4).
    const metrics = createMetrics();
    const app = createApp({
      config: { ...ctx.stack.config, visitorRateLimit: { perKeyPerSecond: 2, perVisitorPerSecond: 1 } },
      db: ctx.stack.database.db, services: ctx.stack.services, log: silentLogger(), metrics, readiness: [],
    });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const same = visitorClient(base, { key, origin: SHOP, token: v.token });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await same('GET', `/v1/conversations/${v.conversationId}`)).status);
      assert.deepEqual(statuses, [200, 200, 429]);
      const limited = await same('GET', `/v1/conversations/${v.conversationId}`);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal(limited.headers.get('access-control-allow-origin'), SHOP);
      // Other visitors share the key's bucket (4 in a burst, of which this visitor took 4).
      const other = await visitorClient(base, { key, origin: SHOP })('GET', '/v1/conversations');
      assert.equal(other.status, 429);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('publishable keys: the console', () => {
  it("lists, creates and revokes an agent's keys on its website page; a revoked key stops at once", async () => {
    const f = await seedAgent(ctx.stack);
    const s = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const bad = await s.post(`/console/agents/${f.agentId}/website/keys`, { name: 'Shop', allowed_origins: 'https://shop.example/checkout' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /not exactly an origin/);
    const created = await s.post(`/console/agents/${f.agentId}/website/keys`, { name: 'Shop', allowed_origins: `${SHOP}\nhttp://localhost:8080` });
    assert.equal(created.status, 303, created.text);
    const shown = await s.get(`/console/agents/${f.agentId}/website`);
    const key = /data-publishable-key>(pk_test_[A-Za-z0-9]+)</.exec(shown.text)?.[1];
    assert.ok(key, 'the key is shown plainly');
    assert.match(shown.text, /http:\/\/localhost:8080/);
    const v = await openAsVisitor(key, f.agentId);
    const keyId = (await f.call('GET', '/v1/publishable_keys')).body.data[0].id;
    const revoked = await s.post(`/console/agents/${f.agentId}/website/keys/${keyId}/revoke`);
    assert.equal(revoked.status, 303);
    const refused = await v.call('GET', `/v1/conversations/${v.conversationId}`);
    assert.equal(refused.status, 401);
    // The identity secret is shown once, then only its id and last four characters.
    const secret = await s.post(`/console/agents/${f.agentId}/website/identity_secrets`, {});
    const value = /data-secret>(isk_[A-Za-z0-9_-]+)</.exec(secret.text)?.[1];
    assert.ok(value, 'shown once');
    assert.ok(!(await s.get(`/console/agents/${f.agentId}/website`)).text.includes(value));
  });
});

describe('publishable keys: the CLI', () => {
  it('creates, lists and revokes a key (npm run cli -- publishable-keys)', async () => {
    const f = await seedAgent(ctx.stack);
    const repo = path.resolve(__dirname, '../..');
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${ctx.stack.database.schema}`);
    const cli = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(repo, 'src/cli.ts'), 'publishable-keys', ...args, '--account', f.accountId], {
        cwd: repo, env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' }, timeout: 60_000,
      });
      return JSON.parse(stdout);
    };
    const created = await cli('create', '--agent', f.agentId, '--origin', SHOP, '--origin', 'http://localhost:3000');
    assert.match(created.key, /^pk_test_/);
    assert.deepEqual(created.allowed_origins, [SHOP, 'http://localhost:3000']);
    const v = await openAsVisitor(created.key, f.agentId);
    assert.deepEqual((await cli('list', '--agent', f.agentId)).data.map((k: any) => k.id), [created.id]);
    assert.ok((await cli('revoke', '--key', created.id)).revoked_at);
    assert.equal((await v.call('GET', `/v1/conversations/${v.conversationId}`)).status, 401);
    await assert.rejects(cli('create', '--agent', f.agentId, '--origin', 'https://*.shop.example'), /no wildcards/);
  });
});
