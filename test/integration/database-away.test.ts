import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/app/container';
import { connectPostgres, type Database } from '../../src/db/database';
import { createApp } from '../../src/http/app';
import { silentLogger } from '../../src/observability/logger';
import { createMetrics } from '../../src/observability/metrics';
import type { WorkflowGateway } from '../../src/temporal/workflow-gateway';
import { buildTestConfig, TEST_DATABASE_URL } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { apiClient, type ApiClient } from '../support/http';
import { TcpProxy } from '../support/tcp-proxy';

/** The API over a database reached through a proxy the test cuts: fast 503s, then recovery on its own. */
let database: TestDatabase;
let proxied: Database;
let proxy: TcpProxy;
let server: Server;
let call: ApiClient;

before(async () => {
  database = await createTestDatabase(__filename);
  const target = new URL(TEST_DATABASE_URL);
  proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const port = await proxy.start();
  const url = new URL(TEST_DATABASE_URL);
  url.host = `127.0.0.1:${port}`;
  proxied = connectPostgres({ url: url.toString(), schema: database.schema, connectTimeoutMs: 1000, statementTimeoutMs: 5000 });
  const config = buildTestConfig();
  const gateway = { start: async () => true, signalIfRunning: async () => false } as unknown as WorkflowGateway;
  const services = createServices({ config, db: proxied.db, workflows: gateway, log: silentLogger() });
  const app = createApp({ config, db: proxied.db, services, log: silentLogger(), metrics: createMetrics(), readiness: [] });
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const account = await services.accounts.createAccount({ name: 'away' });
  const { secret } = await services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
  call = apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, secret);
});
after(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await proxied?.close();
  await proxy?.cut();
  await database?.destroy();
});

describe('the database away', () => {
  it('answers 503 service_unavailable fast while it is away, and recovers by itself', async () => {
    const body = { url: 'https://example.com/hook', events: ['message.updated'] };
    assert.equal((await call('POST', '/v1/webhook_endpoints', body)).status, 201);

    await proxy.cut();
    for (const [method, path] of [['GET', '/v1/webhook_endpoints'], ['POST', '/v1/webhook_endpoints'], ['GET', '/v1/messages']] as const) {
      const started = Date.now();
      const res = await call(method, path, method === 'POST' ? body : undefined);
      assert.equal(res.status, 503, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'service_unavailable');
      assert.ok(res.body.error.request_id);
      assert.ok(Date.now() - started < 3000, `${method} ${path} answered in ${Date.now() - started} ms`);
    }

    await proxy.restore();
    const listed = await call('GET', '/v1/webhook_endpoints');
    assert.equal(listed.status, 200);
    assert.equal(listed.body.data.length, 1, 'what was accepted before is still there');
  });
});
