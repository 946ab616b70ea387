import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VisitorTokens } from '../../src/widget/visitor-tokens';
import { seedAgent, type AgentFixture } from '../support/agents';
import { signInToConsole } from '../support/console';
import { useTestStack } from '../support/stack';
import { visitorClient } from '../support/widget';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { visitorRateLimit: { perKeyPerSecond: 10_000, perVisitorPerSecond: 10_000 } } });
const SHOP = 'https://shop.example';
const DAY = 24 * 60 * 60;

async function createKey(f: AgentFixture, origins: string[] = [SHOP]) {
  const res = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: origins });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; key: string };
}

const DEFAULTS = { theme_color: '#2563eb', position: 'bottom-right', greeting: null, proactive: null, persistence: 'local' };

describe('widget settings: the API', () => {
  it('answers the defaults, then keeps what is set field by field', async () => {
    const f = await seedAgent(ctx.stack);
    const initial = await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`);
    assert.equal(initial.status, 200);
    assert.deepEqual(initial.body, { object: 'widget_settings', agent_id: f.agentId, identity: 'optional', ...DEFAULTS });
    const set = await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, {
      theme_color: '#FF5500', position: 'bottom-left', greeting: 'Hi! Ask me about orders.', persistence: 'session',
      proactive: { message: 'Questions about plans?', delay_seconds: 20, paths: ['/pricing', '/plans'] },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const expected = {
      object: 'widget_settings', agent_id: f.agentId, identity: 'optional', theme_color: '#ff5500', position: 'bottom-left',
      greeting: 'Hi! Ask me about orders.', persistence: 'session', proactive: { message: 'Questions about plans?', delay_seconds: 20, paths: ['/pricing', '/plans'] },
    };
    assert.deepEqual(set.body, expected);
    // A partial update changes its fields only; null clears.
    const partial = await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, { identity: 'required', greeting: null });
    assert.deepEqual(partial.body, { ...expected, identity: 'required', greeting: null });
    assert.deepEqual((await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`)).body, partial.body);
  });

  it('refuses bad values (400/422 naming the field) and changes nothing', async () => {
    const f = await seedAgent(ctx.stack);
    const good = { theme_color: '#123456', greeting: 'Hello', proactive: { message: 'Hi', delay_seconds: 5, paths: ['/a'] } };
    assert.equal((await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, good)).status, 200);
    const before = (await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`)).body;
    const proactive = (p: Record<string, unknown>) => ({ proactive: { message: 'Hi', delay_seconds: 5, ...p } });
    const cases: Array<[unknown, number, string]> = [
      [{ theme_color: 'red' }, 400, 'theme_color'],
      [{ theme_color: '#12345' }, 400, 'theme_color'],
      [{ theme_color: '#1234567' }, 400, 'theme_color'],
      [{ position: 'top-left' }, 400, 'position'],
      [{ persistence: 'cookie' }, 400, 'persistence'],
      [{ greeting: 'x'.repeat(501) }, 400, 'greeting'],
      [{ greeting: '   ' }, 400, 'greeting'],
      [proactive({ message: 'x'.repeat(301) }), 400, 'proactive.message'],
      [proactive({ delay_seconds: 601 }), 400, 'proactive.delay_seconds'],
      [proactive({ delay_seconds: -1 }), 400, 'proactive.delay_seconds'],
      [proactive({ delay_seconds: 1.5 }), 400, 'proactive.delay_seconds'],
      [proactive({ paths: Array.from({ length: 21 }, (_, i) => `/p${i}`) }), 400, 'proactive.paths'],
      [proactive({ paths: ['pricing'] }), 400, 'proactive.paths.0'],
      [proactive({ paths: ['/a?b=1'] }), 400, 'proactive.paths.0'],
      [proactive({ paths: ['https://evil.example/'] }), 400, 'proactive.paths.0'],
      [proactive({ paths: ['/a', '/a'] }), 422, 'proactive.paths'],
      [proactive({ extra: 1 }), 400, 'proactive.extra'],
      [{ colour: '#123456' }, 400, 'colour'],
    ];
    for (const [body, status, param] of cases) {
      const res = await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, body);
      assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.param, param, JSON.stringify(res.body));
    }
    assert.deepEqual((await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`)).body, before);
  });

  it("answers 404 for another account's agent and leaves it alone", async () => {
    const f = await seedAgent(ctx.stack);
    const other = await seedAgent(ctx.stack);
    assert.equal((await f.call('POST', `/v1/agents/${other.agentId}/widget_settings`, { theme_color: '#000000' })).status, 404);
    assert.equal((await f.call('GET', `/v1/agents/${other.agentId}/widget_settings`)).status, 404);
    assert.equal((await other.call('GET', `/v1/agents/${other.agentId}/widget_settings`)).body.theme_color, DEFAULTS.theme_color);
  });
});

describe('widget settings: the public config (GET /v1/widget_config)', () => {
  it('answers a publishable key from an allowed origin, with CORS, exactly the widget config', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, { theme_color: '#0F766E', greeting: 'Welcome!', identity: 'required', proactive: { message: 'Need help?', delay_seconds: 0 } });
    // identity: required, and no identity JWT nor visitor token: the config is read with the key alone (a bad token is not even read).
    const res = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: 'vt_nonsense' })('GET', '/v1/widget_config');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const agentName = (await f.call('GET', `/v1/agents/${f.agentId}`)).body.name;
    assert.deepEqual(res.body, {
      object: 'widget_config', agent_id: f.agentId, agent_name: agentName, theme_color: '#0f766e', position: 'bottom-right',
      greeting: 'Welcome!', proactive: { message: 'Need help?', delay_seconds: 0, paths: [] }, identity: 'required', persistence: 'local',
    });
    assert.deepEqual(Object.keys(res.body), ['object', 'agent_id', 'agent_name', 'theme_color', 'position', 'greeting', 'proactive', 'identity', 'persistence']);
    assert.equal(res.headers.get('access-control-allow-origin'), SHOP);
    assert.equal(res.headers.get('visitor-token'), null, 'no visitor is made for the config');
    const preflight = await fetch(`${ctx.stack.baseUrl}/v1/widget_config`, { method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), SHOP);
    const doc = await (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
    assert.ok(doc.paths['/v1/widget_config']?.get, 'documented');
  });

  it('refuses another origin, no origin, a revoked key and a secret key', async () => {
    const f = await seedAgent(ctx.stack);
    const { id, key } = await createKey(f);
    for (const origin of ['https://evil.example', undefined]) {
      const res = await visitorClient(ctx.stack.baseUrl, { key, origin })('GET', '/v1/widget_config');
      assert.equal(res.status, 403, `${origin}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'origin_not_allowed');
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    }
    // A page on another site cannot pass for a same-origin one (the browser sets Sec-Fetch-Site, and Origin).
    const crossSite = await visitorClient(ctx.stack.baseUrl, { key })('GET', '/v1/widget_config', undefined, { 'sec-fetch-site': 'cross-site' });
    assert.equal(crossSite.status, 403);
    const preflight = await fetch(`${ctx.stack.baseUrl}/v1/widget_config`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.status, 403);
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    const secret = await f.call('GET', '/v1/widget_config');
    assert.equal(secret.status, 403, JSON.stringify(secret.body));
    assert.equal(secret.body.error.code, 'publishable_key_required');
    await f.call('POST', `/v1/publishable_keys/${id}/revoke`);
    const revoked = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP })('GET', '/v1/widget_config');
    assert.equal(revoked.status, 401);
  });

  it("the key's agent only: another account's agent settings never show", async () => {
    const f = await seedAgent(ctx.stack);
    const other = await seedAgent(ctx.stack);
    await other.call('POST', `/v1/agents/${other.agentId}/widget_settings`, { greeting: 'Other shop' });
    const { key } = await createKey(f);
    const res = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP })('GET', '/v1/widget_config');
    assert.equal(res.body.agent_id, f.agentId);
    assert.equal(res.body.greeting, null);
  });
});

describe('website visitors: Idempotency-Key', () => {
  it('a retried visitor message post replays the first answer: one message, one run', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const anon = visitorClient(ctx.stack.baseUrl, { key, origin: SHOP });
    const opened = await anon('POST', '/v1/conversations', { agent_id: f.agentId });
    const visitor = visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: opened.body.visitor_token });
    const path = `/v1/conversations/${opened.body.id}/messages`;
    const body = { role: 'customer', content: 'How long does standard shipping take?' };
    const first = await visitor('POST', path, body, { 'idempotency-key': 'retry-1' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const second = await visitor('POST', path, body, { 'idempotency-key': 'retry-1' });
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.body.run.id, first.body.run.id);
    const transcript = await f.call('GET', path);
    assert.deepEqual(transcript.body.data.map((m: any) => m.role), ['customer', 'agent']);
    const runs = await f.call('GET', `/v1/runs?conversation_id=${opened.body.id}`);
    if (runs.status === 200) assert.equal(runs.body.data.length, 1);
    // The same key with another body is refused, as for secret keys.
    const reused = await visitor('POST', path, { role: 'customer', content: 'Something else' }, { 'idempotency-key': 'retry-1' });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.code, 'idempotency_key_reused');
  });

  it("keys are per visitor: another visitor's same key never replays the first visitor's answer", async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const anon = visitorClient(ctx.stack.baseUrl, { key, origin: SHOP });
    const a = await anon('POST', '/v1/conversations', { agent_id: f.agentId }, { 'idempotency-key': 'open' });
    const b = await anon('POST', '/v1/conversations', { agent_id: f.agentId }, { 'idempotency-key': 'open' });
    // Two new visitors (no token): each is its own key space, so each gets its own conversation.
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.notEqual(a.body.id, b.body.id);
    assert.equal(b.headers.get('idempotent-replayed'), null);
    const again = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: a.body.visitor_token })('POST', '/v1/conversations', { agent_id: f.agentId }, { 'idempotency-key': 'open-2' });
    const replay = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: a.body.visitor_token })('POST', '/v1/conversations', { agent_id: f.agentId }, { 'idempotency-key': 'open-2' });
    assert.equal(replay.body.id, again.body.id);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  });
});

describe('website visitors: visitor token expiry', () => {
  const tokensAt = (secondsAgo: number) => new VisitorTokens(ctx.stack.config.secrets.server, () => Math.floor(Date.now() / 1000) - secondsAgo);

  it('refuses an expired token (401 visitor_token_expired) and a tampered one (401 visitor_token_invalid)', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const expired = tokensAt(31 * DAY).issue({ mode: 'test', agentId: f.agentId }).token;
    const res = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: expired })('GET', '/v1/conversations');
    assert.equal(res.status, 401, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'visitor_token_expired');
    assert.match(res.body.error.message, /expired at .* drop it to start as a new visitor/);
    assert.equal(res.headers.get('access-control-allow-origin'), SHOP, 'the widget can read why');

    const fresh = tokensAt(0).issue({ mode: 'test', agentId: f.agentId }).token;
    const [id, exp, sig] = fresh.split('.') as [string, string, string];
    const later = (parseInt(exp, 36) + 365 * DAY).toString(36);
    const tampered = [`${id}.${later}.${sig}`, `${id}.${exp}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`, `vt_vis_${'a'.repeat(24)}.${exp}.${sig}`, `${id}.${sig}`];
    for (const token of tampered) {
      const refused = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token })('GET', '/v1/conversations');
      assert.equal(refused.status, 401, token);
      assert.equal(refused.body.error.code, 'visitor_token_invalid', token);
    }
    // A token of another agent does not verify here either.
    const otherAgent = tokensAt(0).issue({ mode: 'test', agentId: 'agt_other' }).token;
    assert.equal((await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: otherAgent })('GET', '/v1/conversations')).body.error.code, 'visitor_token_invalid');
  });

  it('renews a token used after a day (Visitor-Token header, same visitor, a fresh 30 days); a new one is not renewed again', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f);
    const opened = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP })('POST', '/v1/conversations', { agent_id: f.agentId });
    assert.equal(opened.headers.get('visitor-token'), opened.body.visitor_token);
    const visitorId = opened.body.visitor_token.split('.')[0].slice(3);
    const fresh = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: opened.body.visitor_token })('GET', `/v1/conversations/${opened.body.id}`);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers.get('visitor-token'), null);
    // The same visitor's token as issued 20 days ago (still valid): answered, and renewed.
    const old = tokensAt(20 * DAY).tokenFor({ mode: 'test', agentId: f.agentId, visitorId });
    const res = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: old })('GET', `/v1/conversations/${opened.body.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const renewed = res.headers.get('visitor-token');
    assert.ok(renewed && renewed !== old, 'renewed');
    assert.equal(renewed.split('.')[0], `vt_${visitorId}`);
    const expiresIn = parseInt(renewed.split('.')[1]!, 36) - Math.floor(Date.now() / 1000);
    assert.ok(expiresIn > 29 * DAY && expiresIn <= 30 * DAY, `expires in ${expiresIn} s`);
    const withRenewed = await visitorClient(ctx.stack.baseUrl, { key, origin: SHOP, token: renewed })('GET', `/v1/conversations/${opened.body.id}`);
    assert.equal(withRenewed.status, 200);
  });
});

describe('widget settings: the console', () => {
  it('shows the snippet for each active key with its origins and the JWT examples, and saves the settings form', async () => {
    const f = await seedAgent(ctx.stack);
    const { key } = await createKey(f, [SHOP, 'http://localhost:8080']);
    const s = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const page = await s.get(`/console/agents/${f.agentId}/website`);
    assert.equal(page.status, 200);
    const base = ctx.stack.config.http.publicBaseUrl;
    assert.match(
      page.text,
      new RegExp(`&lt;script src=&quot;${base.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')}/widget\\.js&quot; data-key=&quot;${key}&quot; integrity=&quot;sha384-[A-Za-z0-9+/=]+&quot; crossorigin=&quot;anonymous&quot; async&gt;&lt;/script&gt;`),
      'the snippet with the served script\'s integrity, escaped once',
    );
    assert.match(page.text, /data-copy>Copy</);
    assert.match(page.text, /data-allowed-origin>http:\/\/localhost:8080</);
    assert.match(page.text, /data-jwt-example="node"/);
    assert.match(page.text, /data-jwt-example="python"/);

    const saved = await s.post(`/console/agents/${f.agentId}/website/settings`, {
      theme_color: '#aa3300', position: 'bottom-left', persistence: 'memory', greeting: 'Hello from the shop',
      proactive: '1', proactive_message: 'Looking at plans?', proactive_delay_seconds: '15', proactive_paths: '/pricing\n/plans\n',
    });
    assert.equal(saved.status, 303, saved.text.slice(0, 500));
    const api = (await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`)).body;
    assert.deepEqual(api, {
      object: 'widget_settings', agent_id: f.agentId, identity: 'optional', theme_color: '#aa3300', position: 'bottom-left', persistence: 'memory',
      greeting: 'Hello from the shop', proactive: { message: 'Looking at plans?', delay_seconds: 15, paths: ['/pricing', '/plans'] },
    });
    const shown = await s.get(`/console/agents/${f.agentId}/website`);
    assert.match(shown.text, /name="theme_color" value="#aa3300"/);
    assert.match(shown.text, /<option value="bottom-left" selected>/);

    const bad = await s.post(`/console/agents/${f.agentId}/website/settings`, { theme_color: '#aa3300', greeting: '', proactive: '1', proactive_message: 'Hi', proactive_delay_seconds: '9999', proactive_paths: '' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /proactive\.delay_seconds/);
    assert.deepEqual((await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`)).body, api, 'nothing changed');

    const cleared = await s.post(`/console/agents/${f.agentId}/website/settings`, { theme_color: '#aa3300', greeting: '', proactive_message: 'ignored', proactive_delay_seconds: '1' });
    assert.equal(cleared.status, 303);
    const after = (await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`)).body;
    assert.equal(after.greeting, null);
    assert.equal(after.proactive, null);
  });

  it("the live preview makes a key for the console's own origin, embeds /widget.js with it, and that key works from the page", async () => {
    const f = await seedAgent(ctx.stack);
    const s = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const before = await s.get(`/console/agents/${f.agentId}/website/preview`);
    assert.equal(before.status, 200);
    assert.doesNotMatch(before.text, /widget\.js/);
    const opened = await s.post(`/console/agents/${f.agentId}/website/preview`);
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get('location'), `/console/agents/${f.agentId}/website/preview`);
    const keys = (await f.call('GET', `/v1/publishable_keys?agent_id=${f.agentId}`)).body.data;
    assert.equal(keys.length, 1);
    assert.deepEqual(keys[0].allowed_origins, [ctx.stack.baseUrl]);
    assert.equal(keys[0].name, 'Console preview');
    const preview = await s.get(`/console/agents/${f.agentId}/website/preview`);
    assert.ok(preview.text.includes(`<script src="/widget.js" data-key="${keys[0].key}" async></script>`), preview.text);
    // Opening it again reuses the key.
    await s.post(`/console/agents/${f.agentId}/website/preview`);
    assert.equal((await f.call('GET', `/v1/publishable_keys?agent_id=${f.agentId}`)).body.data.length, 1);
    // The page's own requests: same-origin, so a browser sends a GET without Origin but with Sec-Fetch-Site.
    const sameOrigin = visitorClient(ctx.stack.baseUrl, { key: keys[0].key });
    const config = await sameOrigin('GET', '/v1/widget_config', undefined, { 'sec-fetch-site': 'same-origin' });
    assert.equal(config.status, 200, JSON.stringify(config.body));
    const conversation = await visitorClient(ctx.stack.baseUrl, { key: keys[0].key, origin: ctx.stack.baseUrl })('POST', '/v1/conversations', { agent_id: f.agentId });
    assert.equal(conversation.status, 201);
    // Without a console session there is no preview.
    const anonymous = await fetch(`${ctx.stack.baseUrl}/console/agents/${f.agentId}/website/preview`, { redirect: 'manual' });
    assert.notEqual(anonymous.status, 200);
  });
});
