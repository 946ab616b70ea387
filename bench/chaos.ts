/**
 * npm run chaos — faults against the local stack (Temporal dev server, the API in this process, the worker
 * in a child process, Postgres reached through a TCP proxy this script controls, the SMSC simulator, a
 * webhook receiver). Per scenario it sends CHAOS_SIZE SMS (POST /v1/messages, retried with the same
 * Idempotency-Key) and CHAOS_SIZE webhook events (emitted by the API process, retried with the same event
 * id), injects the fault a third of the way in, and waits until everything arrived or nothing moved for
 * a while. Prints one JSON report: sent, arrived, lost, duplicated per scenario and kind.
 *
 * Scenarios: `worker_kill_9` (the worker killed with SIGKILL and started again) and `postgres_cut_10s`
 * (every connection to Postgres dropped and refused for 10 s). Not yet: the SMSC dropped with the second
 * carrier down, and a receiver down for an hour of workflow time (the retry schedule is covered by the
 * time-skipping workflow tests).
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { createRuntime, type Runtime } from '../src/app/runtime';
import { connectPostgres, type Database } from '../src/db/database';
import { derivedId, IdPrefix } from '../src/domain/ids';
import { silentLogger } from '../src/observability/logger';
import { TEST_DATABASE_URL } from '../test/support/config';
import { createTestDatabase, type TestDatabase } from '../test/support/db';
import { apiClient, type ApiClient } from '../test/support/http';
import { startReceiver } from '../test/support/receiver';
import { pollUntil } from '../test/support/poll';
import { SmscSimulator } from '../test/support/smsc-simulator';
import { TcpProxy } from '../test/support/tcp-proxy';
import { createDevServerEnv } from '../test/support/temporal';
import { benchSmsConfig, type SmsBenchWorkerInput } from './sms-worker';
import { machineInfo, round, runPool } from './support';

type Scenario = 'worker_kill_9' | 'postgres_cut_10s';
const ALL: Scenario[] = ['worker_kill_9', 'postgres_cut_10s'];
const EVENT_TYPE = 'chaos.ping';

interface Stack {
  runtime: Runtime;
  database: TestDatabase;
  apiDb: Database;
  proxy: TcpProxy;
  smsc: SmscSimulator;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  call: ApiClient;
  accountId: string;
  startWorker(): Promise<void>;
  killWorker(): void;
  close(): Promise<void>;
}

async function startStack(): Promise<Stack> {
  const env = await createDevServerEnv();
  const database = await createTestDatabase('chaos');
  const target = new URL(TEST_DATABASE_URL);
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(TEST_DATABASE_URL);
  viaProxy.host = `127.0.0.1:${await proxy.start()}`;
  const apiDb = connectPostgres({ url: viaProxy.toString(), schema: database.schema, max: 20, connectTimeoutMs: 2000 });
  const smsc = new SmscSimulator({ redeliverReceipts: true });
  const smscPort = await smsc.start();
  const receiver = await startReceiver();
  const taskQueue = `chaos-${Date.now()}`;
  const uncertainWaitSeconds = 15;
  const runtime = await createRuntime({
    config: benchSmsConfig({ taskQueue, smscPort, uncertainWaitSeconds }),
    db: apiDb.db,
    listen: apiDb.listen,
    log: silentLogger(),
    temporalAddress: env.address,
  });
  const server = await runtime.startApi(0, '127.0.0.1');
  const workerInput: SmsBenchWorkerInput = {
    temporalAddress: env.address, schema: database.schema, taskQueue, smscPort, databaseUrl: viaProxy.toString(), uncertainWaitSeconds,
  };
  let worker: ChildProcess | undefined;
  const startWorker = async () => {
    const child = fork(require.resolve('./sms-worker'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BENCH_SMS_WORKER: JSON.stringify(workerInput) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    worker = child;
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`chaos worker exited with ${code}`)));
    });
    child.removeAllListeners('exit');
  };
  await startWorker();
  await pollUntil('the SMPP carrier binds', () => smsc.boundSessions > 0, { timeoutMs: 20_000 });
  const account = await runtime.services.accounts.createAccount({ name: 'chaos' });
  const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
  await runtime.services.webhookEndpoints.createEndpoint({
    principal: { accountId: account.id, keyId: 'chaos', mode: 'test' },
    url: `${receiver.url}/hook`,
    events: [EVENT_TYPE],
  });
  return {
    runtime, database, apiDb, proxy, smsc, receiver, accountId: account.id,
    call: apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, secret),
    startWorker,
    killWorker: () => worker?.kill('SIGKILL'),
    async close() {
      await proxy.restore();
      if (worker && worker.exitCode === null) {
        const exited = new Promise((r) => worker!.once('exit', r));
        worker.send('stop');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        worker.kill('SIGKILL');
      }
      await runtime.close();
      await apiDb.close();
      await proxy.cut();
      await receiver.close();
      await smsc.stop();
      await database.destroy();
      await env.teardown();
    },
  };
}

async function untilOk<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      const v = await fn();
      if (ok(v)) return v;
    } catch {
      // the service or the database is away: try again
    }
    await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** Math.min(i, 5))));
  }
}

/** Sends `size` SMS and `size` events, runs `fault` a third of the way in, waits, and counts. */
async function runScenario(stack: Stack, name: Scenario, size: number, fault: () => Promise<void>) {
  const started = performance.now();
  let accepted = 0;
  let faulted: Promise<void> | undefined;
  const maybeFault = () => {
    if (!faulted && accepted >= size / 3) faulted = fault();
  };
  const bodyOf = (i: number) => `${name} sms ${i}`;
  const eventIdOf = (i: number) => derivedId(IdPrefix.event, 'chaos', name, String(i));
  await Promise.all([
    runPool(size, 16, async (i) => {
      const body = { to: `+1415${String(5_000_000 + i + (name === 'worker_kill_9' ? 0 : 2_000_000)).slice(-7)}`, from: 'Chaos', body: bodyOf(i) };
      await untilOk(() => stack.call('POST', '/v1/messages', body, { 'Idempotency-Key': `${name}-${i}` }), (r) => r.status === 201);
      accepted++;
      maybeFault();
    }),
    runPool(size, 16, async (i) => {
      await untilOk(
        () => stack.runtime.services.events.emit({ accountId: stack.accountId, livemode: false, type: EVENT_TYPE, data: { scenario: name, i }, eventId: eventIdOf(i) }),
        () => true,
      );
    }),
  ]);
  await faulted;

  const delivered = async () =>
    untilOk(
      async () =>
        (
          await stack.database.db
            .selectFrom('messages')
            .select(sql<number>`count(*)::int`.as('n'))
            .where('status', '=', 'delivered')
            .where('body', 'like', `${name} sms %`)
            .executeTakeFirstOrThrow()
        ).n,
      () => true,
    );
  const ids = new Set(Array.from({ length: size }, (_, i) => eventIdOf(i)));
  const received = () => stack.receiver.requests.map((r) => JSON.parse(r.rawBody.toString()).id as string).filter((id) => ids.has(id));
  let last = '';
  let lastChange = Date.now();
  for (;;) {
    const state = `${await delivered()}/${new Set(received()).size}`;
    if (state === `${size}/${size}`) break;
    if (state !== last) {
      last = state;
      lastChange = Date.now();
    }
    if (Date.now() - lastChange > 120_000) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const bodies = new Set(Array.from({ length: size }, (_, i) => bodyOf(i)));
  const smsAccepted = stack.smsc.accepted.filter((s) => bodies.has(s.text)).map((s) => s.text);
  const deliveredCount = await delivered();
  const got = received();
  return {
    seconds: round((performance.now() - started) / 1000, 1),
    sms: {
      sent: size,
      arrived: new Set(smsAccepted).size,
      delivered_status: deliveredCount,
      lost: size - Math.min(new Set(smsAccepted).size, deliveredCount),
      duplicated: smsAccepted.length - new Set(smsAccepted).size,
    },
    webhooks: {
      sent: size,
      arrived: new Set(got).size,
      lost: size - new Set(got).size,
      // The same event delivered twice (same Webhook-Id): at least once is the webhook contract.
      duplicated: got.length - new Set(got).size,
    },
  };
}

export async function runChaos(opts: { size: number; scenarios?: Scenario[] }) {
  const stack = await startStack();
  const report: Record<string, unknown> = {};
  try {
    for (const scenario of opts.scenarios ?? ALL) {
      if (scenario === 'worker_kill_9') {
        report[scenario] = await runScenario(stack, scenario, opts.size, async () => {
          stack.killWorker();
          await stack.startWorker();
        });
      } else {
        report[scenario] = await runScenario(stack, scenario, opts.size, async () => {
          await stack.proxy.cut();
          await new Promise((r) => setTimeout(r, 10_000));
          await stack.proxy.restore();
        });
      }
    }
  } finally {
    await stack.close();
  }
  return report;
}

if (require.main === module) {
  const size = Number(process.env.CHAOS_SIZE ?? 2000);
  const scenarios = process.env.CHAOS_SCENARIOS ? (process.env.CHAOS_SCENARIOS.split(',') as Scenario[]) : ALL;
  runChaos({ size, scenarios })
    .then((report) => {
      console.log(JSON.stringify({ chaos: report, size, machine: machineInfo(), started_at: new Date().toISOString() }));
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
