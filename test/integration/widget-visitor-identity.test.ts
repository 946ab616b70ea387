import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seedAgent, type AgentFixture } from '../support/agents';
import { useTestStack } from '../support/stack';
import { nowSeconds, signJwt, visitorClient } from '../support/widget';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { visitorRateLimit: { perKeyPerSecond: 10_000, perVisitorPerSecond: 10_000 } } });
const SHOP = 'https://shop.example';

interface Widget {
  f: AgentFixture;
  key: string;
  kid: string;
  secret: string;
  /** A browser of the shop: its visitor token and identity JWT as given. */
  browser(opts?: { token?: string; jwt?: string }): ReturnType<typeof visitorClient>;
  jwt(claims?: Record<string, unknown>, header?: Record<string, unknown>, secret?: string): string;
}

async function setUp(): Promise<Widget> {
  const f = await seedAgent(ctx.stack);
  const key = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: [SHOP] });
  assert.equal(key.status, 201);
  const secret = await f.call('POST', `/v1/agents/${f.agentId}/identity_secrets`, {});
  assert.equal(secret.status, 201, JSON.stringify(secret.body));
  const w: Widget = {
    f,
    key: key.body.key,
    kid: secret.body.id,
    secret: secret.body.secret,
    browser: (opts = {}) => visitorClient(ctx.stack.baseUrl, { key: key.body.key, origin: SHOP, ...opts }),
    jwt: (claims = {}, header = {}, s = secret.body.secret) =>
      signJwt({ alg: 'HS256', typ: 'JWT', kid: secret.body.id, ...header }, { sub: 'cus_42', exp: nowSeconds() + 600, email: 'ada@example.com', name: 'Ada', ...claims }, s),
  };
  return w;
}

describe('visitor identity: identity secrets', () => {
  it('are shown once, listed without the secret, and rotate with an overlap', async () => {
    const w = await setUp();
    assert.match(w.secret, /^isk_/);
    assert.match(w.kid, /^idk_/);
    const listed = await w.f.call('GET', `/v1/agents/${w.f.agentId}/identity_secrets`);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.data[0].secret, undefined);
    assert.ok(!JSON.stringify(listed.body).includes(w.secret));

    const opens = async (jwt: string) => (await w.browser({ jwt })('POST', '/v1/conversations', { agent_id: w.f.agentId })).status;
    // A second secret: both verify (the old one until removed or a set time).
    const second = await w.f.call('POST', `/v1/agents/${w.f.agentId}/identity_secrets`, {});
    assert.equal(await opens(w.jwt()), 201);
    assert.equal(await opens(w.jwt({}, { kid: second.body.id }, second.body.secret)), 201);
    // A third with the others ending in an hour: all three verify meanwhile.
    const third = await w.f.call('POST', `/v1/agents/${w.f.agentId}/identity_secrets`, { expire_others_in_seconds: 3600 });
    assert.equal(third.status, 201);
    const shown = await w.f.call('GET', `/v1/agents/${w.f.agentId}/identity_secrets`);
    const ends = Object.fromEntries(shown.body.data.map((s: any) => [s.id, s.expires_at]));
    assert.ok(ends[w.kid] && ends[second.body.id], JSON.stringify(ends));
    assert.equal(ends[third.body.id], null);
    assert.equal(await opens(w.jwt()), 201);
    // Ending the overlap at once (0): only the newest verifies.
    const fourth = await w.f.call('POST', `/v1/agents/${w.f.agentId}/identity_secrets`, { expire_others_in_seconds: 0 });
    assert.equal(await opens(w.jwt()), 401);
    assert.equal(await opens(w.jwt({}, { kid: third.body.id }, third.body.secret)), 401);
    assert.equal(await opens(w.jwt({}, { kid: fourth.body.id }, fourth.body.secret)), 201);
    // Removed: refused at once.
    assert.equal((await w.f.call('DELETE', `/v1/agents/${w.f.agentId}/identity_secrets/${fourth.body.id}`)).status, 200);
    assert.equal(await opens(w.jwt({}, { kid: fourth.body.id }, fourth.body.secret)), 401);
  });

  it("answer 404 for another account's agent", async () => {
    const w = await setUp();
    const other = await seedAgent(ctx.stack);
    assert.equal((await w.f.call('POST', `/v1/agents/${other.agentId}/identity_secrets`, {})).status, 404);
    assert.equal((await w.f.call('GET', `/v1/agents/${other.agentId}/identity_secrets`)).status, 404);
    assert.equal((await w.f.call('POST', `/v1/agents/${other.agentId}/widget_settings`, { identity: 'required' })).status, 404);
  });
});

describe('visitor identity: signed-in visitors', () => {
  it('links the conversation to customer.id, follows the customer to another browser and across channels', async () => {
    const w = await setUp();
    const jwt = w.jwt({ phone: '+14155550123' });
    const opened = await w.browser({ jwt })('POST', '/v1/conversations', { agent_id: w.f.agentId });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    assert.deepEqual(opened.body.customer, { id: 'cus_42', email: 'ada@example.com', name: 'Ada', phone: '+14155550123' });
    // Another browser (another visitor token) with a JWT for the same customer sees it; without one it does not.
    const elsewhere = w.browser({ jwt: w.jwt() });
    assert.equal((await elsewhere('GET', `/v1/conversations/${opened.body.id}`)).status, 200);
    assert.deepEqual((await elsewhere('GET', '/v1/conversations')).body.data.map((c: any) => c.id), [opened.body.id]);
    assert.equal((await w.browser({ token: opened.body.visitor_token })('GET', `/v1/conversations/${opened.body.id}`)).status, 404);
    assert.equal((await w.browser({ jwt: w.jwt({ sub: 'cus_other' }) })('GET', `/v1/conversations/${opened.body.id}`)).status, 404);
    // The customer's SMS continues the same conversation.
    const sms = await ctx.stack.services.conversations.receiveCustomerMessage({
      accountId: w.f.accountId, livemode: false, agentId: w.f.agentId, channel: 'sms', customer: { phone: '+14155550123' }, content: 'Any news?', triggerRun: false,
    });
    assert.equal(sms.conversation.id, opened.body.id);
  });

  it('keeps the conversation a visitor started anonymously when they sign in (visitor token + JWT)', async () => {
    const w = await setUp();
    const anon = await w.browser()('POST', '/v1/conversations', { agent_id: w.f.agentId });
    const token = anon.body.visitor_token;
    assert.deepEqual(anon.body.customer, {});
    const first = await w.browser({ token })('POST', `/v1/conversations/${anon.body.id}/messages?wait_ms=0`, { role: 'customer', content: 'Hello, I have a question' });
    assert.equal(first.status, 201);
    const signedIn = await w.browser({ token, jwt: w.jwt() })('POST', `/v1/conversations/${anon.body.id}/messages?wait_ms=0`, { role: 'customer', content: 'Now I am signed in' });
    assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
    const got = await w.f.call('GET', `/v1/conversations/${anon.body.id}`);
    assert.equal(got.body.customer.id, 'cus_42');
    const messages = await w.browser({ jwt: w.jwt() })('GET', `/v1/conversations/${anon.body.id}/messages`);
    assert.deepEqual(messages.body.data.filter((m: any) => m.role === 'customer').map((m: any) => m.content), ['Hello, I have a question', 'Now I am signed in']);
  });

  it('with identity: required, refuses a visitor without a valid JWT (401) and stores nothing', async () => {
    const w = await setUp();
    const anon = await w.browser()('POST', '/v1/conversations', { agent_id: w.f.agentId });
    assert.equal(anon.status, 201);
    const set = await w.f.call('POST', `/v1/agents/${w.f.agentId}/widget_settings`, { identity: 'required' });
    assert.equal(set.status, 200);
    assert.equal(set.body.identity, 'required');
    const token = anon.body.visitor_token;
    const refused = await w.browser({ token })('POST', `/v1/conversations/${anon.body.id}/messages`, { role: 'customer', content: 'let me in' });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'identity_token_missing');
    const open = await w.browser()('POST', '/v1/conversations', { agent_id: w.f.agentId });
    assert.equal(open.status, 401);
    const expired = await w.browser({ token, jwt: w.jwt({ exp: nowSeconds() - 3600 }) })('POST', `/v1/conversations/${anon.body.id}/messages`, { role: 'customer', content: 'x' });
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.code, 'identity_token_expired');
    assert.deepEqual((await w.f.call('GET', `/v1/conversations/${anon.body.id}/messages`)).body.data, []);
    assert.equal((await w.f.call('GET', '/v1/conversations')).body.data.length, 1);
    const ok = await w.browser({ jwt: w.jwt() })('POST', '/v1/conversations', { agent_id: w.f.agentId });
    assert.equal(ok.status, 201);
  });
});

describe('visitor identity: every bad JWT is a 401 with a code', () => {
  it('refuses expired, too far ahead, no exp, wrong kid, wrong signature, alg none and other algorithms', async () => {
    const w = await setUp();
    const other = await setUp();
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const cases: Array<[string, string, string]> = [
      ['expired', w.jwt({ exp: nowSeconds() - 120 }), 'identity_token_expired'],
      ['exp more than 24 h ahead', w.jwt({ exp: nowSeconds() + 25 * 3600 }), 'identity_token_invalid'],
      ['no exp', w.jwt({ exp: undefined }), 'identity_token_invalid'],
      ['no sub', w.jwt({ sub: undefined }), 'identity_token_invalid'],
      ['issued in the future', w.jwt({ iat: nowSeconds() + 3600 }), 'identity_token_invalid'],
      ['unknown kid', w.jwt({}, { kid: 'idk_unknown' }), 'identity_token_invalid'],
      ["another agent's kid and secret", w.jwt({}, { kid: other.kid }, other.secret), 'identity_token_invalid'],
      ['no kid', w.jwt({}, { kid: undefined }), 'identity_token_invalid'],
      ['wrong signature', w.jwt({}, {}, 'isk_not_the_secret'), 'identity_token_invalid'],
      ['tampered payload', (() => { const [h, , s] = w.jwt().split('.'); return `${h}.${b64({ sub: 'cus_admin', exp: nowSeconds() + 600 })}.${s}`; })(), 'identity_token_invalid'],
      ['alg none', `${b64({ alg: 'none', kid: w.kid })}.${b64({ sub: 'cus_42', exp: nowSeconds() + 600 })}.`, 'identity_token_invalid'],
      ['alg HS512', w.jwt({}, { alg: 'HS512' }), 'identity_token_invalid'],
      ['alg RS256', w.jwt({}, { alg: 'RS256' }), 'identity_token_invalid'],
      ['not a JWT', 'hello', 'identity_token_invalid'],
    ];
    for (const [name, jwt, code] of cases) {
      const res = await w.browser({ jwt })('POST', '/v1/conversations', { agent_id: w.f.agentId });
      assert.equal(res.status, 401, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, code, name);
      assert.ok(res.body.error.message.length > 10, name);
    }
    assert.equal((await w.f.call('GET', '/v1/conversations')).body.data.length, 0);
  });

  it('refuses a huge JWT and a deeply nested payload quickly', async () => {
    const w = await setUp();
    const huge = w.jwt({ name: 'x'.repeat(200_000) }); // past Node's header cap: 431 before the service reads it
    const overCap = w.jwt({ name: 'x'.repeat(5_000) }); // under Node's cap, over the JWT cap (4096)
    const nested = w.jwt({ email: JSON.parse('['.repeat(1500) + ']'.repeat(1500)) });
    const deepHeader = signJwt({ alg: 'HS256', kid: w.kid, x: JSON.parse('['.repeat(1500) + ']'.repeat(1500)) }, { sub: 'a', exp: nowSeconds() + 60 }, w.secret);
    for (const [name, jwt] of [['huge', huge], ['over the JWT cap', overCap], ['nested payload', nested], ['nested header', deepHeader]] as const) {
      const started = Date.now();
      const res = await w.browser({ jwt })('POST', '/v1/conversations', { agent_id: w.f.agentId });
      assert.ok(name === 'huge' ? res.status === 431 : res.status === 401, `${name}: ${res.status}`);
      if (res.status === 401) assert.equal(res.body.error.code, 'identity_token_invalid', name);
      assert.ok(Date.now() - started < 1000, `${name} took ${Date.now() - started} ms`);
    }
  });
});
