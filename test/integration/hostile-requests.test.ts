import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { buildTestConfig } from '../support/config';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

const base = buildTestConfig();
const ctx = useTestStack({ label: __filename, worker: false, config: { rateLimit: { ...base.rateLimit, anonymousPerSecond: 5 } } });

/** Sends headers announcing `contentLength` bytes and no body; resolves with the status if the server answers. */
function headersOnly(path: string, contentLength: number, headers: Record<string, string> = {}): Promise<number> {
  const url = new URL(path, ctx.stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(contentLength), ...headers } });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
      req.destroy();
    });
    req.on('error', reject);
    req.setTimeout(3000, () => reject(new Error('no answer within 3 s: the server waited for the body')));
    req.flushHeaders();
  });
}

describe('request bodies are read after authentication, under a small cap', () => {
  it('answers an anonymous request announcing 11 MB with 401 without waiting for the body', async () => {
    assert.equal(await headersOnly('/v1/knowledge_bases', 11_000_000), 401);
  });

  it('caps JSON bodies at the default limit, with more only on bulk routes', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const big = await call('POST', '/v1/knowledge_bases', { name: 'x', description: 'y'.repeat(300_000) });
    assert.equal(big.status, 400);
    assert.match(big.body.error.message, /larger than 256000 bytes/);
    // The bulk route reads the 1 MB body (and then finds no such base): the cap there is the large one.
    const records = Array.from({ length: 20 }, (_, i) => ({ title: `Row ${i}`, content: 'z'.repeat(50_000) }));
    const bulk = await call('POST', '/v1/knowledge_bases/kb_missing/sources', { type: 'record', records });
    assert.equal(bulk.status, 404, JSON.stringify(bulk.body).slice(0, 600));
  });
});

describe('NUL bytes and other unstorable input answer 4xx, not 500', () => {
  it('in body strings and keys (422: schema-valid inside free-form objects, yet unstorable), path and query (400); deep nesting and undecodable paths (400)', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const name = await call('POST', '/v1/knowledge_bases', { name: 'a\u0000b' });
    assert.equal(name.status, 422);
    assert.equal(name.body.error.code, 'parameter_unprocessable');
    assert.equal(name.body.error.param, 'name');
    const meta = await call('POST', '/v1/knowledge_bases', '{"name":"n","metadata":{"k\\u0000":"v"}}');
    assert.equal(meta.status, 422);
    // A tool result is free-form: a NUL in a key at any depth is valid to the schema, and unstorable.
    const toolResult = await call('POST', '/v1/runs/run_missing/tool_results', '{"tool_call_id":"call_x","result":{"a":{"b\\u0000":1}}}');
    assert.equal(toolResult.status, 422, JSON.stringify(toolResult.body));
    const nested = await call('POST', '/v1/knowledge_bases', `{"name":"n","metadata":{"deep":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`);
    assert.equal(nested.status, 400);
    for (const path of ['/v1/messages/msg_%00', '/v1/messages?starting_after=%00', '/v1/knowledge_bases/%FF', '/v1/files/%E0%A4%A']) {
      const res = await call('GET', path);
      assert.equal(res.status, 400, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.type, 'invalid_request_error');
    }
  });
});

describe('lone UTF-16 surrogates answer 422 parameter_unprocessable, like NUL (LOW)', () => {
  it('in a body string, a metadata value, a key inside a free-form tool result', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    for (const [path, body, param] of [
      ['/v1/knowledge_bases', '{"name":"a\\ud800b"}', 'name'],
      ['/v1/knowledge_bases', '{"name":"n","metadata":{"k":"\\udc00"}}', 'metadata.k'],
      ['/v1/knowledge_bases', '{"name":"n","metadata":{"\\udbff":"v"}}', undefined],
      ['/v1/runs/run_missing/tool_results', '{"tool_call_id":"call_x","result":{"a":["x\\ud83d"]}}', 'result.a.0'],
    ] as const) {
      const res = await call('POST', path, body);
      assert.equal(res.status, 422, `${body}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'parameter_unprocessable', body);
      assert.equal(res.body.error.param, param, body);
    }
    // A well-formed pair (an emoji) is fine.
    const emoji = await call('POST', '/v1/knowledge_bases', '{"name":"Help \\ud83d\\ude00"}');
    assert.equal(emoji.status, 201, JSON.stringify(emoji.body));
    assert.equal(emoji.body.name, 'Help \u{1F600}');
  });
});

describe('customer.phone is an E.164 number valid in its plan (LOW)', () => {
  it('answers 400 for a number not in E.164 form and 422 for one outside its numbering plan, before looking up the agent', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const create = (phone: string) => call('POST', '/v1/conversations', { agent_id: 'agt_missing', channel: 'sms', customer: { phone } });
    for (const phone of ['555-0100', '+1 415 555 0100', '00447400123456', 'call me', '+0123456789']) {
      const res = await create(phone);
      assert.equal(res.status, 400, `${phone}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.param, 'customer.phone', phone);
    }
    const outside = await create('+99912345678');
    assert.equal(outside.status, 422, JSON.stringify(outside.body));
    assert.equal(outside.body.error.code, 'parameter_unprocessable');
    assert.equal(outside.body.error.param, 'customer.phone');
    // A valid number passes validation (and then finds no such agent).
    assert.equal((await create('+447400123456')).status, 404);
  });
});

describe('requests without a valid key are limited per client address', () => {
  it('answers 429 with Retry-After once an address spends its burst, counting failed keys', async () => {
    const anonymous = apiClient(ctx.stack.baseUrl);
    const wrong = apiClient(ctx.stack.baseUrl, 'sk_test_000000000000000000000000wrong');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await anonymous('GET', '/v1/messages')).status);
    for (let i = 0; i < 6; i++) statuses.push((await wrong('GET', '/v1/messages')).status);
    assert.ok(statuses.slice(0, 6).every((s) => s === 401), statuses.join());
    const limited = await wrong('GET', '/v1/messages');
    assert.equal(limited.status, 429, statuses.join());
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    const { apiKey } = await ctx.stack.newAccount();
    assert.equal((await apiClient(ctx.stack.baseUrl, apiKey)('GET', '/v1/messages')).status, 200, 'a valid key is not limited by the address');
  });
});
