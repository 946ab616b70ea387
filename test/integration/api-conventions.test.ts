import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, worker: false });

const endpointBody = (n = 0) => ({ url: `https://example.com/hooks/${n}`, events: ['message.updated'] });

describe('authentication', () => {
  it('answers 401 authentication_error for a missing, malformed or unknown key', async () => {
    const missing = await apiClient(ctx.stack.baseUrl)('GET', '/v1/webhook_endpoints');
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error.type, 'authentication_error');
    assert.equal(missing.body.error.code, 'api_key_missing');
    assert.ok(missing.body.error.request_id);

    const malformed = await apiClient(ctx.stack.baseUrl)('GET', '/v1/webhook_endpoints', undefined, { authorization: 'Basic abc' });
    assert.equal(malformed.status, 401);
    assert.equal(malformed.body.error.code, 'api_key_invalid');

    const unknown = await apiClient(ctx.stack.baseUrl, 'sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')('GET', '/v1/webhook_endpoints');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.type, 'authentication_error');
    assert.equal(unknown.body.error.code, 'api_key_invalid');
  });

  it('keeps accounts apart: another account\'s id is a 404 for read, update and delete', async () => {
    const a = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount('A')).apiKey);
    const b = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount('B')).apiKey);
    const created = await a('POST', '/v1/webhook_endpoints', endpointBody());
    assert.equal(created.status, 201);
    const id = created.body.id;

    for (const [method, path, body] of [
      ['GET', `/v1/webhook_endpoints/${id}`, undefined],
      ['POST', `/v1/webhook_endpoints/${id}`, { enabled: false }],
      ['DELETE', `/v1/webhook_endpoints/${id}`, undefined],
      ['POST', `/v1/webhook_endpoints/${id}/rotate_secret`, undefined],
    ] as const) {
      const res = await b(method, path, body);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.type, 'not_found_error');
      assert.equal(res.body.error.code, 'resource_missing');
    }
    const listB = await b('GET', '/v1/webhook_endpoints');
    assert.deepEqual(listB.body.data, []);
    const stillThere = await a('GET', `/v1/webhook_endpoints/${id}`);
    assert.equal(stillThere.status, 200);
    assert.equal(stillThere.body.enabled, true);
  });
});

describe('validation', () => {
  it('answers 400 naming the parameter, and stores nothing', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const missing = await call('POST', '/v1/webhook_endpoints', { events: ['*'] });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.type, 'invalid_request_error');
    assert.equal(missing.body.error.code, 'parameter_missing');
    assert.equal(missing.body.error.param, 'url');

    const invalid = await call('POST', '/v1/webhook_endpoints', { url: 'https://example.com', events: ['not an event'] });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error.code, 'parameter_invalid');
    assert.equal(invalid.body.error.param, 'events.0');

    const unknown = await call('POST', '/v1/webhook_endpoints', { ...endpointBody(), colour: 'red' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'parameter_unknown');
    assert.equal(unknown.body.error.param, 'colour');

    const badJson = await call('POST', '/v1/webhook_endpoints', '{"url": ');
    assert.equal(badJson.status, 400);
    assert.equal(badJson.body.error.code, 'invalid_json');

    const badLimit = await call('GET', '/v1/webhook_endpoints?limit=1000');
    assert.equal(badLimit.status, 400);
    assert.equal(badLimit.body.error.param, 'limit');

    const list = await call('GET', '/v1/webhook_endpoints');
    assert.equal(list.body.data.length, 0);
  });

  it('refuses private addresses and plain http for live keys', async () => {
    const live = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount('live', 'live')).apiKey);
    const http = await live('POST', '/v1/webhook_endpoints', { url: 'http://example.com/hook', events: ['*'] });
    assert.equal(http.status, 422);
    assert.equal(http.body.error.code, 'url_not_allowed');
    assert.equal(http.body.error.param, 'url');
  });
});

describe('idempotency', () => {
  it('replays the identical response for the same key and body', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const first = await call('POST', '/v1/webhook_endpoints', endpointBody(1), { 'Idempotency-Key': 'same-key' });
    const second = await call('POST', '/v1/webhook_endpoints', endpointBody(1), { 'Idempotency-Key': 'same-key' });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const list = await call('GET', '/v1/webhook_endpoints');
    assert.equal(list.body.data.length, 1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    await call('POST', '/v1/webhook_endpoints', endpointBody(1), { 'Idempotency-Key': 'k1' });
    const reused = await call('POST', '/v1/webhook_endpoints', endpointBody(2), { 'Idempotency-Key': 'k1' });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.code, 'idempotency_key_reused');
    const list = await call('GET', '/v1/webhook_endpoints');
    assert.equal(list.body.data.length, 1);
  });

  it('scopes keys per account', async () => {
    const a = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const b = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const ra = await a('POST', '/v1/webhook_endpoints', endpointBody(1), { 'Idempotency-Key': 'shared' });
    const rb = await b('POST', '/v1/webhook_endpoints', endpointBody(1), { 'Idempotency-Key': 'shared' });
    assert.notEqual(ra.body.id, rb.body.id);
  });

  it('answers 409 idempotency_key_in_use while the first request is running', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    await ctx.stack.database.db
      .insertInto('idempotency_keys')
      // Keys are stored per mode: `test:` for a test key's.
      .values({ account_id: accountId, key: 'test:busy', request_method: 'POST', request_path: '/v1/webhook_endpoints', request_hash: 'x', state: 'in_progress', response_status: null, response_body: null })
      .execute();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    // Same request hash as the in-flight one: compute by letting a first request claim a second key.
    const body = JSON.stringify(endpointBody(3));
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update('POST').update('\0').update('/v1/webhook_endpoints').update('\0').update(body).digest('hex');
    await ctx.stack.database.db.updateTable('idempotency_keys').set({ request_hash: hash }).where('key', '=', 'test:busy').execute();
    const res = await call('POST', '/v1/webhook_endpoints', body, { 'Idempotency-Key': 'busy' });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'idempotency_key_in_use');
  });
});

describe('pagination', () => {
  it('walks 45 objects with limit=20 in 3 pages with no gaps or repeats, and back with ending_before', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const created: string[] = [];
    for (let i = 0; i < 45; i++) created.push((await call('POST', '/v1/webhook_endpoints', endpointBody(i))).body.id);

    const pages: any[] = [];
    let cursor: string | undefined;
    do {
      const res = await call('GET', `/v1/webhook_endpoints?limit=20${cursor ? `&starting_after=${cursor}` : ''}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.object, 'list');
      pages.push(res.body);
      cursor = res.body.has_more ? res.body.data.at(-1).id : undefined;
    } while (cursor);

    assert.deepEqual(pages.map((p) => p.data.length), [20, 20, 5]);
    assert.deepEqual(pages.map((p) => p.has_more), [true, true, false]);
    const seen = pages.flatMap((p) => p.data.map((d: { id: string }) => d.id));
    assert.equal(new Set(seen).size, 45);
    assert.deepEqual(seen, [...created].reverse(), 'newest first, every object once');

    const back = await call('GET', `/v1/webhook_endpoints?limit=20&ending_before=${pages[2].data[0].id}`);
    assert.deepEqual(back.body.data.map((d: { id: string }) => d.id), pages[1].data.map((d: { id: string }) => d.id));

    const unknownCursor = await call('GET', '/v1/webhook_endpoints?starting_after=we_nope');
    assert.equal(unknownCursor.status, 404);
    assert.equal(unknownCursor.body.error.param, 'starting_after');
  });
});

describe('operational routes', () => {
  it('sets Request-Id on every response, serves OpenAPI 3.1, docs, health and metrics', async () => {
    const call = apiClient(ctx.stack.baseUrl);
    const health = await call('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.match(health.headers.get('request-id') ?? '', /^req_/);

    const spec = await call('GET', '/v1/openapi.json');
    assert.equal(spec.body.openapi, '3.1.0');
    assert.ok(spec.body.paths['/v1/webhook_endpoints'].post.requestBody);
    assert.ok(spec.body.paths['/v1/events/{id}'].get);

    const docs = await fetch(`${ctx.stack.baseUrl}/docs`);
    assert.match(await docs.text(), /swagger-ui/);
    const asset = await fetch(`${ctx.stack.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    assert.equal(asset.status, 200);

    const metrics = await fetch(`${ctx.stack.baseUrl}/metrics`);
    assert.match(await metrics.text(), /http_requests_total/);

    const missingRoute = await call('GET', '/v1/nothing-here');
    assert.equal(missingRoute.status, 404);
    assert.equal(missingRoute.body.error.type, 'not_found_error');
  });
});
