import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startMetricsServer } from '../../src/http/metrics-access';
import { createMetrics } from '../../src/observability/metrics';
import { buildTestConfig } from '../support/config';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

const base = buildTestConfig();
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const ctx = useTestStack({
  label: __filename,
  worker: false,
  temporal: 'dev-server',
  config: {
    limits: { webhookEndpointsPerAccount: 2, apiSourcesPerAccount: 1 },
    metrics: { ...base.metrics, token: METRICS_TOKEN },
  },
});

async function account() {
  const { apiKey, accountId } = await ctx.stack.newAccount();
  return { call: apiClient(ctx.stack.baseUrl, apiKey), apiKey, accountId };
}

describe('cursors belong to the caller', () => {
  it("refuses another account's object as starting_after / ending_before", async () => {
    const a = await account();
    const b = await account();
    const theirs = (await a.call('POST', '/v1/knowledge_bases', { name: 'A base' })).body.id;
    await b.call('POST', '/v1/knowledge_bases', { name: 'B base' });
    for (const param of ['starting_after', 'ending_before']) {
      const res = await b.call('GET', `/v1/knowledge_bases?${param}=${theirs}`);
      // Not an object of the caller's list: 404, exactly as for an id that exists nowhere.
      assert.equal(res.status, 404, `${param}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.param, param);
    }
    const own = await a.call('GET', `/v1/knowledge_bases?ending_before=${theirs}`);
    assert.equal(own.status, 200);
  });
});

describe('multipart bodies', () => {
  it('answers a malformed multipart body with 400, not 500', async () => {
    const { apiKey } = await account();
    const send = (contentType: string, body: string) =>
      fetch(`${ctx.stack.baseUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType }, body });
    const cases: [string, string][] = [
      ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello'],
      ['multipart/form-data', 'no boundary at all'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nbroken header line\r\n\r\n--xyz--'],
      ['multipart/form-data; boundary=xyz', `--xyz\r\nContent-Disposition: form-data; name="file"; filename="a\u0000b.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--xyz--\r\n`],
    ];
    for (const [type, body] of cases) {
      const res = await send(type, body);
      const json = (await res.json()) as any;
      assert.equal(res.status, 400, `${type} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(json)}`);
      assert.equal(json.error.type, 'invalid_request_error');
    }
  });
});

describe('per-account limits', () => {
  it('refuses a webhook endpoint past the limit with 422 account_limit_reached, and counts deletions', async () => {
    const { call } = await account();
    const create = () => call('POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.com/x', events: ['*'] });
    const created = await Promise.all([create(), create(), create()]);
    assert.deepEqual(created.map((r) => r.status).sort(), [201, 201, 422]);
    const refused = created.find((r) => r.status === 422)!;
    assert.equal(refused.body.error.code, 'account_limit_reached');
    assert.match(refused.body.error.message, /2 webhook endpoints, the most allowed \(2\)/);
    const first = created.find((r) => r.status === 201)!.body.id;
    assert.equal((await call('DELETE', `/v1/webhook_endpoints/${first}`)).status, 200);
    assert.equal((await create()).status, 201);
  });

  it('refuses an api source past the limit; other source types are not counted', async () => {
    const { call } = await account();
    const kb = (await call('POST', '/v1/knowledge_bases', { name: 'Limits' })).body.id;
    const api = () => call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'api', url: 'https://api.example.com/search' });
    assert.equal((await api()).status, 202);
    const second = await api();
    assert.equal(second.status, 422);
    assert.equal(second.body.error.code, 'account_limit_reached');
    const records = await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records: [{ title: 't', content: 'c' }] });
    assert.equal(records.status, 202);
  });
});

describe('/metrics is not public', () => {
  it('answers 404 on the API port without the metrics token, and the metrics with it', async () => {
    assert.equal((await fetch(`${ctx.stack.baseUrl}/metrics`)).status, 404);
    const wrong = await fetch(`${ctx.stack.baseUrl}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } });
    assert.ok(wrong.status === 401 || wrong.status === 404, `status ${wrong.status}`);
    const ok = await fetch(`${ctx.stack.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /http_requests_total/);
  });

  it('serves them on their own listener when METRICS_PORT is set', async () => {
    const metrics = createMetrics();
    const server = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      assert.equal((await fetch(`${url}/metrics`)).status, 200);
      assert.equal((await fetch(`${url}/v1/account`)).status, 404);
    } finally {
      server.close();
    }
  });
});

describe('docker-compose', () => {
  it('publishes the API port and nothing else', () => {
    const compose = fs.readFileSync(path.resolve(__dirname, '../../docker-compose.yml'), 'utf8');
    const published: string[] = [];
    let service = '';
    for (const line of compose.split('\n')) {
      const name = /^ {2}([\w-]+):\s*$/.exec(line);
      if (name) service = name[1]!;
      if (/^\s+ports:/.test(line)) published.push(`${service} ${line.trim()}`);
    }
    assert.deepEqual(published, ['api ports: ["3000:3000"]']);
  });
});
