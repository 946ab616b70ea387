import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consoleRoleNeeded } from '../../src/console/console-roles';
import type { Role } from '../../src/domain/roles';
import { apiRoleNeeded } from '../../src/http/api-roles';
import { consoleRequest, consoleSession } from '../support/console';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename });

/** Signs in to the console as a new console user of `accountId` with `role` (email and password). */
async function signInAs(accountId: string, role: Role) {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  await ctx.stack.services.consoleSessions.createUser({ accountId, email, password: 'correct horse battery', role, displayName: `The ${role}` });
  const base = ctx.stack.baseUrl;
  const res = await consoleRequest(base, '/console/sign-in', { form: { email, password: 'correct horse battery' }, headers: { origin: base } });
  assert.equal(res.status, 303, res.text);
  return consoleSession(base, res.cookie!);
}

/** Every route of the console's router (method and path under /console), read from the app itself. */
function consoleRoutes(): Array<{ method: 'GET' | 'POST'; path: string }> {
  const layers = (ctx.stack.app as unknown as { router: { stack: Array<{ handle: { stack?: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }> } }).router.stack;
  const consoleRouter = layers.find((l) => l.handle.stack?.some((x) => x.route?.path === '/sign-in'));
  assert.ok(consoleRouter, 'the console router');
  const routes: Array<{ method: 'GET' | 'POST'; path: string }> = [];
  for (const layer of consoleRouter.handle.stack!) {
    if (!layer.route) continue;
    for (const method of Object.keys(layer.route.methods)) routes.push({ method: method.toUpperCase() as 'GET' | 'POST', path: layer.route.path });
  }
  return routes;
}

/** Routes a person uses before signing in (no role applies) and signing out (every role may). */
const BEFORE_SIGN_IN = new Set(['GET /sign-in', 'POST /sign-in', 'GET /sign-in/:token', 'GET /invites/:token', 'POST /invites/:token', 'POST /sign-out']);

/**
 * What the issue asks of each role, stated here on its own (not read from the route table): a viewer
 * reads; an agent also works the inbox (every POST under /inbox/ but "add to tests"), the test chat and
 * approvals; an admin (and an owner) everything.
 */
function leastRole(method: string, path: string): Role {
  if (method === 'GET') return 'viewer';
  if (path === '/inbox/:id/add-to-tests') return 'admin';
  if (path.startsWith('/inbox/') || path === '/agents/:id/test-chat' || path === '/runs/:id/approvals') return 'agent';
  return 'admin';
}

const RANK: Record<Role, number> = { viewer: 0, agent: 1, admin: 2, owner: 3 };

/** A console request as `s`, dropping a stream (the live inbox) once its headers arrive. */
async function consoleCall(s: Awaited<ReturnType<typeof signInAs>>, method: 'GET' | 'POST', path: string) {
  const ac = new AbortController();
  const res = await fetch(`${ctx.stack.baseUrl}${path}`, {
    method,
    redirect: 'manual',
    signal: ac.signal,
    headers: { cookie: s.cookie, ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded', origin: ctx.stack.baseUrl } : {}) },
    body: method === 'POST' ? new URLSearchParams({ _csrf: s.csrf }).toString() : undefined,
  });
  const text = (res.headers.get('content-type') ?? '').includes('event-stream') ? '' : await res.text();
  ac.abort();
  return { status: res.status, text };
}

/** Every console route a role reaches is a sample of at most `n` (spread over the table, GETs and POSTs both). */
const spread = <T,>(xs: T[], n: number) => (xs.length <= n ? xs : Array.from({ length: n }, (_v, i) => xs[Math.floor((i * xs.length) / n)]!));

describe('console roles, route by route', () => {
  it('the role table gives every console route the role the issue asks for', () => {
    const routes = consoleRoutes().filter((r) => !BEFORE_SIGN_IN.has(`${r.method} ${r.path}`));
    assert.ok(routes.length > 50, `found ${routes.length} console routes`);
    assert.ok(routes.some((r) => r.path === '/team'), 'the Team page is among them');
    assert.ok(routes.some((r) => r.path === '/runs/:id/approvals'), 'approvals are among them');
    for (const r of routes) {
      const concrete = r.path.replace(/:(\w+)/g, (_m, name: string) => `x_${name}`);
      assert.equal(consoleRoleNeeded(r.method, concrete), leastRole(r.method, r.path), `${r.method} ${r.path}`);
    }
  });

  it('refuses every console route a role does not reach (403 page naming the role), and lets a sample of the rest through', async () => {
    const { accountId } = await ctx.stack.newAccount('Roles');
    const routes = consoleRoutes().filter((r) => !BEFORE_SIGN_IN.has(`${r.method} ${r.path}`));
    let refused = 0;
    for (const role of ['viewer', 'agent', 'admin', 'owner'] as const) {
      const s = await signInAs(accountId, role);
      const reached = routes.filter((r) => RANK[role] >= RANK[leastRole(r.method, r.path)]);
      const refusedRoutes = routes.filter((r) => RANK[role] < RANK[leastRole(r.method, r.path)]);
      // Every refusal goes through HTTP: that is what shows the check runs before each route.
      for (const r of [...refusedRoutes, ...spread(reached, 12)]) {
        const concrete = `/console${r.path.replace(/:(\w+)/g, (_m, name: string) => `x_${name}`)}`;
        const res = await consoleCall(s, r.method, concrete);
        const name = `${role}: ${r.method} ${r.path}`;
        const needed = leastRole(r.method, r.path);
        if (RANK[role] < RANK[needed]) {
          refused++;
          assert.equal(res.status, 403, `${name} was not refused: ${res.status} ${res.text.slice(0, 200)}`);
          assert.match(res.text, new RegExp(`needs the ${needed} role or above`), name);
          assert.match(res.text, /<html/, `${name}: the console's error page`);
        } else {
          assert.doesNotMatch(res.text, /role or above/, `${name} was refused: ${res.status} ${res.text.slice(0, 300)}`);
          assert.notEqual(res.status, 403, `${name}: ${res.text.slice(0, 300)}`);
        }
      }
    }
    assert.ok(refused > 60, `${refused} refusals checked`);
  });

  it('a key sign-in has the key\'s role: an owner key does everything, a viewer key reads only', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Key sign-in');
    const base = ctx.stack.baseUrl;
    const owner = await consoleSession(base, (await consoleRequest(base, '/console/sign-in', { form: { secret_key: apiKey }, headers: { origin: base } })).cookie!);
    assert.match((await owner.get('/console/team')).text, /data-my-role>owner</);
    assert.equal((await owner.post('/console/keys', { name: 'for a viewer', role: 'viewer' })).status, 200);
    const { secret } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'test', role: 'viewer' });
    const viewer = await consoleSession(base, (await consoleRequest(base, '/console/sign-in', { form: { secret_key: secret }, headers: { origin: base } })).cookie!);
    assert.equal((await viewer.get('/console/inbox')).status, 200);
    const refused = await viewer.post('/console/keys', { name: 'escalate', role: 'owner' });
    assert.equal(refused.status, 403);
  });

  it('a teammate creates API keys of their own role or below, never above', async () => {
    const { accountId } = await ctx.stack.newAccount('Key roles');
    const admin = await signInAs(accountId, 'admin');
    const above = await admin.post('/console/keys', { name: 'too high', role: 'owner' });
    assert.equal(above.status, 403, above.text.slice(0, 200));
    assert.match(above.text, /needs the owner role or above/);
    const ok = await admin.post('/console/keys', { name: 'agent key', role: 'agent' });
    assert.equal(ok.status, 200);
    const keys = await ctx.stack.services.accounts.listApiKeys({ accountId, mode: 'test' });
    assert.deepEqual(keys.map((k) => [k.name, k.role]), [['default', 'owner'], ['agent key', 'agent']], 'existing keys are owners; the new one is an agent');
    const secret = /data-secret>(sk_test_[A-Za-z0-9]+)</.exec(ok.text)?.[1];
    assert.ok(secret);
    const res = await fetch(`${ctx.stack.baseUrl}/v1/knowledge_bases`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'KB' }) });
    assert.equal(res.status, 403, 'the agent key cannot change the setup');
  });
});

/** A request with `key`, reading the status and (JSON only) the error code; a stream is dropped once its headers arrive. */
async function callWith(key: string, method: string, path: string) {
  const ac = new AbortController();
  const res = await fetch(`${ctx.stack.baseUrl}${path}`, {
    method: method.toUpperCase(),
    headers: { authorization: `Bearer ${key}`, ...(method === 'post' ? { 'content-type': 'application/json' } : {}) },
    body: method === 'post' ? '{}' : undefined,
    signal: ac.signal,
  });
  let code: string | undefined;
  if ((res.headers.get('content-type') ?? '').includes('json')) code = ((await res.json()) as { error?: { code?: string } }).error?.code;
  ac.abort();
  return { status: res.status, code };
}

describe('API key roles, operation by operation', () => {
  it('walks every operation of the OpenAPI document (refusals over HTTP): viewer keys GET only; agent keys also conversation messages, handoffs, closing and approvals; admin and owner keys everything', async () => {
    const { accountId } = await ctx.stack.newAccount('API roles');
    const keys: Partial<Record<Role, string>> = {};
    for (const role of ['viewer', 'agent', 'admin'] as const) keys[role] = (await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'test', role })).secret;
    const doc = (await (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const agentOps = new Set(['post /v1/conversations/{id}/messages', 'post /v1/conversations/{id}/handoff/close', 'post /v1/conversations/{id}/close', 'post /v1/runs/{id}/approvals']);
    let walked = 0;
    let refused = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops).filter((m) => ['get', 'post', 'delete'].includes(m))) {
        if (Array.isArray(ops[method]!.security) && ops[method]!.security!.length === 0) continue;
        walked++;
        const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => `x_${name}`);
        const name = `${method} ${path}`;
        for (const role of ['viewer', 'agent', 'admin'] as const) {
          const allowed = role === 'admin' || method === 'get' || (role === 'agent' && agentOps.has(name));
          assert.equal(RANK[role] >= RANK[apiRoleNeeded(method, path)], allowed, `the role table on ${role} ${name}`);
          // Every refusal goes through HTTP; of the calls a role may make, every seventh does.
          if (allowed && walked % 7 !== 0) continue;
          const res = await callWith(keys[role]!, method, concrete);
          if (allowed) {
            assert.notEqual(res.code, 'role_insufficient', `${role} key refused on ${name}`);
          } else {
            refused++;
            assert.equal(res.status, 403, `${role} key not refused on ${name}: ${res.status} ${res.code}`);
            assert.equal(res.code, 'role_insufficient', name);
          }
        }
      }
    }
    assert.ok(walked > 80, `walked ${walked} operations`);
    assert.ok(refused > 60, `${refused} refusals`);
  });
});
