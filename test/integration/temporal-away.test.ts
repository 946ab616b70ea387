import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createServices, type Services } from '../../src/app/container';
import { smsBatchWorkflowId } from '../../workflows/shared/sms.contracts';
import { createApp } from '../../src/app/create-app';
import { silentLogger } from '../../src/observability/logger';
import { createMetrics } from '../../src/observability/metrics';
import { WorkflowGateway } from '../../src/temporal/workflow-gateway';
import { buildTestConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { TcpProxy } from '../support/tcp-proxy';
import { createTimeSkippingEnv } from '../support/temporal';

/**
 * The API over a Temporal server reached through a proxy the test cuts: a request that starts a workflow
 * answers 503 service_unavailable within the gateway's deadline (not a 500, not a hung request), changes
 * nothing, and works again once the server is back. An SMS needs no workflow start in the request: it is
 * accepted into the outbox, and the dispatcher starts its workflow once Temporal is back.
 */
let env: TestWorkflowEnvironment;
let database: TestDatabase;
let proxy: TcpProxy;
let connection: Connection;
let server: Server;
let call: ApiClient;
let smsDispatcher: Services['smsDispatcher'];
let dispatcherStarted: Promise<void>;

const RPC_DEADLINE_MS = 1500;

before(async () => {
  env = await createTimeSkippingEnv();
  database = await createTestDatabase(__filename);
  const [host, port] = env.address.split(':');
  proxy = new TcpProxy({ host: host!, port: Number(port) });
  const proxyPort = await proxy.start();
  connection = await Connection.connect({ address: `127.0.0.1:${proxyPort}` });
  const config = buildTestConfig();
  const gateway = new WorkflowGateway(new Client({ connection, namespace: env.namespace ?? 'default' }), config.temporal.taskQueue, RPC_DEADLINE_MS);
  const services = createServices({ config, db: database.db, workflows: gateway, log: silentLogger() });
  const app = createApp({ config, db: database.db, services, log: silentLogger(), metrics: createMetrics(), readiness: [] });
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const account = await services.accounts.createAccount({ name: 'temporal-away' });
  const { secret } = await services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
  await services.senders.registerSender({ accountId: account.id, livemode: false, sender: 'AwayCo' });
  call = apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, secret);
  // The SMS dispatcher (normally in the worker) starts workflows over the same cut connection.
  smsDispatcher = services.smsDispatcher;
  dispatcherStarted = smsDispatcher.start();
});
after(async () => {
  await smsDispatcher?.stop();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await connection?.close();
  await proxy?.cut();
  await database?.destroy();
  await env?.teardown();
});

describe('Temporal away', () => {
  it('a request that starts a workflow answers 503 service_unavailable within the deadline, stores nothing, and recovers', async () => {
    const body = { to: '+14155550123', channel: 'sms', from: 'AwayCo' };
    const first = await call('POST', '/v1/verifications', body);
    assert.equal(first.status, 201, JSON.stringify(first.body));

    await proxy.cut();
    const started = Date.now();
    const res = await call('POST', '/v1/verifications', { to: '+14155550124', channel: 'sms' }, { 'Idempotency-Key': 'away-1' });
    const took = Date.now() - started;
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'service_unavailable');
    assert.equal(res.headers.get('retry-after'), '1');
    // Bounded by the deadline, not by the client's own retries (no timing threshold on the machine's speed:
    // the bound is the configured deadline plus generous slack).
    assert.ok(took < RPC_DEADLINE_MS + 10_000, `answered after ${took} ms`);
    const codesWhileAway = await database.db.selectFrom('messages').select('to').where('origin', '=', 'verification').where('to', '=', '+14155550124').execute();
    assert.deepEqual(codesWhileAway, [], 'no code SMS was queued for the refused request');

    // Back: the client's connection reconnects with its own backoff, so a client retrying as Retry-After
    // says meets 503s a little longer, then the same key runs again (never a 409 or a replayed 503).
    await proxy.restore();
    let retried: Awaited<ReturnType<typeof call>> | undefined;
    await pollUntil('the same key to be accepted once Temporal is back', async () => {
      retried = await call('POST', '/v1/verifications', { to: '+14155550124', channel: 'sms' }, { 'Idempotency-Key': 'away-1' });
      assert.ok(retried.status === 201 || retried.status === 503, `retry answered ${retried.status}: ${JSON.stringify(retried.body)}`);
      return retried.status === 201;
    }, { timeoutMs: 60_000, intervalMs: 1000, detail: () => JSON.stringify(retried?.body) });
    const verifications = await database.db.selectFrom('verifications').select('to').execute();
    assert.deepEqual(verifications.map((v) => v.to).sort(), ['+14155550123', '+14155550124'], 'the refused request left nothing behind; its retry is stored once');
    const codes = await database.db.selectFrom('messages').select('to').where('origin', '=', 'verification').execute();
    assert.equal(codes.length, 2, 'one code SMS per stored verification');
  });

  it('accepts SMS while Temporal is away (the outbox) and starts their workflow once it is back', async () => {
    await dispatcherStarted;
    // The code SMS of the test above have left the outbox: this message is alone in its batch (named after it).
    const outboxEmpty = async () => (await database.db.selectFrom('sms_outbox').select('message_id').execute()).length === 0;
    await pollUntil('the outbox to empty before the cut', outboxEmpty, { timeoutMs: 60_000 });
    await proxy.cut();
    const res = await call('POST', '/v1/messages', { to: '+14155550125', from: 'AwayCo', body: 'while away' }, { 'Idempotency-Key': 'away-sms' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'queued');
    await proxy.restore();
    const handle = env.client.workflow.getHandle(smsBatchWorkflowId(res.body.id));
    await pollUntil('the batch workflow of the accepted message to start', async () => {
      try {
        const d = await handle.describe();
        return d.memo?.messages === 1;
      } catch {
        return false;
      }
    }, { timeoutMs: 60_000, intervalMs: 500 });
    // Its outbox row is deleted once the workflow exists (as are those of the verification codes above).
    await pollUntil('the outbox to empty', outboxEmpty, { timeoutMs: 30_000 });
  });
});
