import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/app/container';
import { connectPostgres, type Database } from '../../src/db/database';
import { createApp } from '../../src/app/create-app';
import { silentLogger } from '../../src/observability/logger';
import { createMetrics } from '../../src/observability/metrics';
import type { WorkflowGateway } from '../../src/temporal/workflow-gateway';
import { buildTestConfig, TEST_DATABASE_URL } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { TcpProxy } from '../support/tcp-proxy';

/** The API over a database reached through a proxy the test cuts: fast 503s, then recovery on its own. */
let database: TestDatabase;
let proxied: Database;
let proxy: TcpProxy;
let server: Server;
let call: ApiClient;
let accountId: string;
/** What the fake Temporal gateway does when a workflow is started (a test may cut the database there). */
let onWorkflowStart: () => Promise<void> = async () => undefined;

before(async () => {
  database = await createTestDatabase(__filename);
  const target = new URL(TEST_DATABASE_URL);
  proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const port = await proxy.start();
  const url = new URL(TEST_DATABASE_URL);
  url.host = `127.0.0.1:${port}`;
  proxied = connectPostgres({ url: url.toString(), schema: database.schema, connectTimeoutMs: 1000, statementTimeoutMs: 5000 });
  const config = buildTestConfig();
  const gateway = {
    start: async () => {
      await onWorkflowStart();
      return true;
    },
    signalIfRunning: async () => false,
  } as unknown as WorkflowGateway;
  const services = createServices({ config, db: proxied.db, workflows: gateway, log: silentLogger() });
  const app = createApp({ config, db: proxied.db, services, log: silentLogger(), metrics: createMetrics(), readiness: [] });
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const account = await services.accounts.createAccount({ name: 'away' });
  accountId = account.id;
  await services.senders.registerSender({ accountId, livemode: false, sender: 'Away' });
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

  it('frees the Idempotency-Key of a request that failed while the database was away once it is back, and stores nothing of it, so the retry runs once', async () => {
    const body = { to: '+14155550123', channel: 'sms' };
    const headers = { 'Idempotency-Key': 'away-then-back' };
    // The database goes away after the key is claimed (when the verification's timer is started, before
    // the verification and its code SMS are stored): the request fails and cannot free its key then.
    onWorkflowStart = async () => {
      onWorkflowStart = async () => undefined;
      await proxy.cut();
    };
    const failed = await call('POST', '/v1/verifications', body, headers);
    assert.equal(failed.status, 503, JSON.stringify(failed.body));
    await proxy.restore();

    // Without retrying the release, the key stayed in progress until the abandoned-key takeover (60 s)
    // and every retry met 409 idempotency_key_in_use meanwhile.
    await pollUntil('the key freed once the database is back', async () => {
      const row = await database.db.selectFrom('idempotency_keys').select('state').where('key', '=', `test:${headers['Idempotency-Key']}`).executeTakeFirst();
      return row === undefined;
    });
    const codes = () => database.db.selectFrom('messages').select('id').where('to', '=', body.to).where('origin', '=', 'verification').execute();
    assert.deepEqual(await codes(), [], 'the failed request queued no code SMS');
    const retried = await call('POST', '/v1/verifications', body, headers);
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal((await codes()).length, 1);
    const replayed = await call('POST', '/v1/verifications', body, headers);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.equal(replayed.body.id, retried.body.id);
  });
});
