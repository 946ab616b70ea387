/**
 * npm run chaos — faults against the local stack (Temporal dev server, the API in this process, the worker
 * in a child process, Postgres reached through a TCP proxy this script controls, two SMSC simulators behind
 * two SMPP carriers, a webhook receiver). Per scenario it sends CHAOS_SIZE SMS (POST /v1/messages, retried
 * with the same Idempotency-Key) and CHAOS_SIZE webhook events (emitted by the API process, retried with
 * the same event id), injects the fault a third of the way in, and waits until everything arrived (or
 * nothing moved for two minutes). Prints one JSON report: sent, arrived, lost, duplicated per scenario and
 * kind, counted on the receiving side (the SMSCs' accepted submits, the receiver's requests) and in the
 * database's final states (messages delivered, deliveries delivered).
 *
 * Scenarios:
 * - `worker_kill_9`: the worker killed with SIGKILL and started again;
 * - `postgres_cut_10s`: every connection to Postgres dropped and refused for 10 s;
 * - `smsc_drop_second_carrier_down`: the first SMSC drops every session on a submit (those in flight are
 *   never answered) and refuses connections for 10 s while the second carrier is down (configured,
 *   refusing connections) the whole run; then the first comes back;
 * - `message_batch_worker_kill_9`: one message batch of CHAOS_SIZE recipients, the worker killed with SIGKILL
 *   a third of the way through it and started again (bench/chaos-batch.ts; SMS only);
 * - `receiver_down_1h`: the webhook receiver refuses connections, from before the first event, for an
 *   hour of workflow time. The run
 *   uses WEBHOOK_RETRY_SCALE = 1/360 (1m → 167 ms, 30m → 5 s, 2h → 20 s), so the hour is 10 s on the real
 *   dev server: the attempts at 0, 1m, 6m and 36m meet the receiver down, the one at 2h36m gets through.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
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
import { createDevServerEnv, workflowBundle } from '../test/support/temporal';
import { benchSmsConfig, type SmsBenchWorkerInput } from './sms-worker';
import { runBatchWorkerKill } from './chaos-batch';
import { machineInfo, round, runPool } from './support';

export const SCENARIOS = ['worker_kill_9', 'postgres_cut_10s', 'smsc_drop_second_carrier_down', 'receiver_down_1h', 'message_batch_worker_kill_9'] as const;
export type Scenario = (typeof SCENARIOS)[number];
const EVENT_TYPE = 'chaos.ping';
/** An hour of the webhook retry schedule in 10 s. */
const WEBHOOK_RETRY_SCALE = 1 / 360;
const HOUR_OF_WORKFLOW_TIME_MS = 3_600_000 * WEBHOOK_RETRY_SCALE;
const OUTAGE_MS = 10_000;
/** Nothing arrived or changed state for this long: the scenario ends with what it has. */
const STALL_MS = 120_000;

interface Stack {
  runtime: Runtime;
  database: TestDatabase;
  apiDb: Database;
  proxy: TcpProxy;
  smsc: SmscSimulator;
  /** The second carrier's SMSC: down (refusing connections) for the whole run. */
  smsc2: SmscSimulator;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  call: ApiClient;
  accountId: string;
  startWorker(): Promise<void>;
  killWorker(): void;
  close(): Promise<void>;
}

const t0 = Date.now();
/** Progress on stderr (CHAOS_VERBOSE=1): where a run spends its time. */
const progress = (what: string, fields: Record<string, unknown> = {}) => {
  if (process.env.CHAOS_VERBOSE) console.error(`[chaos +${((Date.now() - t0) / 1000).toFixed(1)}s] ${what} ${JSON.stringify(fields)}`);
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startStack(): Promise<Stack> {
  const [env, database, bundle] = await Promise.all([createDevServerEnv(), createTestDatabase('chaos'), workflowBundle()]);
  // The worker child loads the bundle built here: a restart after kill -9 does not bundle again.
  const bundleDir = mkdtempSync(path.join(os.tmpdir(), 'chaos-bundle-'));
  const bundlePath = path.join(bundleDir, 'workflows.js');
  writeFileSync(bundlePath, bundle.code);
  const target = new URL(TEST_DATABASE_URL);
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(TEST_DATABASE_URL);
  viaProxy.host = `127.0.0.1:${await proxy.start()}`;
  const apiDb = connectPostgres({ url: viaProxy.toString(), schema: database.schema, max: 20, connectTimeoutMs: 2000 });
  const smsc = new SmscSimulator({ redeliverReceipts: true });
  const smscPort = await smsc.start();
  const smsc2 = new SmscSimulator({ redeliverReceipts: true });
  const secondSmscPort = await smsc2.start();
  await smsc2.stop();
  const receiver = await startReceiver();
  const taskQueue = `chaos-${Date.now()}`;
  const configInput = { taskQueue, smscPort, secondSmscPort, uncertainWaitSeconds: 15, webhookRetryScale: WEBHOOK_RETRY_SCALE };
  const runtime = await createRuntime({
    config: benchSmsConfig(configInput),
    db: apiDb.db,
    listen: apiDb.listen,
    log: silentLogger(),
    temporalAddress: env.address,
  });
  const server = await runtime.startApi(0, '127.0.0.1');
  progress('stack: dev server, database, API up');
  const workerInput: SmsBenchWorkerInput = { ...configInput, temporalAddress: env.address, schema: database.schema, databaseUrl: viaProxy.toString(), workflowBundlePath: bundlePath };
  let worker: ChildProcess | undefined;
  const startWorker = async () => {
    const child = fork(require.resolve('./sms-worker'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BENCH_SMS_WORKER: JSON.stringify(workerInput) },
      // The worker's own output (Temporal's warnings on every retried step) only with CHAOS_VERBOSE.
      stdio: ['ignore', process.env.CHAOS_VERBOSE ? 'inherit' : 'ignore', process.env.CHAOS_VERBOSE ? 'inherit' : 'ignore', 'ipc'],
    });
    worker = child;
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`chaos worker exited with ${code}`)));
    });
    child.removeAllListeners('exit');
  };
  await startWorker();
  progress('stack: worker up');
  await pollUntil('the SMPP carrier binds', () => smsc.boundSessions > 0, { timeoutMs: 20_000 });
  const account = await runtime.services.accounts.createAccount({ name: 'chaos' });
  // SMS in live mode (test mode reaches only the sandbox, and the faults are the SMSCs'); the events and
  // their endpoint in test mode (a live endpoint must be https, the receiver here is plain http).
  await runtime.services.senders.registerSender({ accountId: account.id, livemode: true, sender: 'Chaos' });
  const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'live' });
  await runtime.services.webhookEndpoints.createEndpoint({
    principal: { accountId: account.id, keyId: 'chaos', mode: 'test' },
    url: `${receiver.url}/hook`,
    events: [EVENT_TYPE],
  });
  return {
    runtime, database, apiDb, proxy, smsc, smsc2, receiver, accountId: account.id,
    call: apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, secret),
    startWorker,
    killWorker: () => worker?.kill('SIGKILL'),
    async close() {
      await proxy.restore();
      if (worker && worker.exitCode === null) {
        const exited = new Promise((r) => worker!.once('exit', r));
        worker.send('stop');
        await Promise.race([exited, pause(20_000)]);
        worker.kill('SIGKILL');
      }
      await runtime.close();
      await apiDb.close();
      await proxy.cut();
      await receiver.close();
      await smsc.stop();
      await smsc2.stop();
      await database.destroy();
      await env.teardown();
      rmSync(bundleDir, { recursive: true, force: true });
    },
  };
}

class RefusedError extends Error {}

/** Calls `fn` until `ok` holds, through errors (the service or the database away); `ok` may throw RefusedError to stop. */
async function untilOk<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      const v = await fn();
      if (ok(v)) return v;
    } catch (err) {
      if (err instanceof RefusedError) throw err;
      // the service or the database is away: try again
    }
    await pause(Math.min(1000, 50 * 2 ** Math.min(i, 5)));
  }
}

/** Rows per status, as an object (`{ delivered: 30 }`). */
const byStatus = (rows: { status: string; n: number }[]) => Object.fromEntries(rows.map((r) => [r.status, r.n]));

/** Sends `size` SMS and `size` events, runs `fault` a third of the way in, waits, and counts. */
/** What a fault may look at: the scenario's event ids. */
interface FaultContext {
  eventIds: string[];
}

async function runScenario(stack: Stack, name: Scenario, index: number, size: number, fault: (ctx: FaultContext) => Promise<void>, faultAt = size / 3) {
  const started = performance.now();
  let accepted = 0;
  let emitted = 0;
  let faulted: Promise<void> | undefined;
  // A third of the way in (unless told): of the SMS accepted or of the events emitted, whichever comes first.
  const maybeFault = () => {
    if (!faulted && Math.max(accepted, emitted) >= faultAt) faulted = fault({ eventIds });
  };
  const bodyOf = (i: number) => `${name} sms ${i}`;
  const eventIdOf = (i: number) => derivedId(IdPrefix.event, 'chaos', name, String(i));
  const eventIds = Array.from({ length: size }, (_, i) => eventIdOf(i));
  maybeFault();
  await Promise.all([
    runPool(size, 16, async (i) => {
      // A handset per message and scenario: +1 415 2xx xxxx for the first scenario, 3xx for the second…
      const body = { to: `+1415${(index + 2) * 1_000_000 + i}`, from: 'Chaos', body: bodyOf(i) };
      await untilOk(
        () => stack.call('POST', '/v1/messages', body, { 'Idempotency-Key': `${name}-${i}` }),
        (r) => {
          // Away or busy (5xx, 429, the key in use by the previous try) is tried again; a refusal is a bug here.
          if (r.status >= 400 && r.status < 500 && r.status !== 409 && r.status !== 429) {
            throw new RefusedError(`POST /v1/messages answered ${r.status}: ${JSON.stringify(r.body)}`);
          }
          return r.status === 201;
        },
      );
      accepted++;
      maybeFault();
    }),
    runPool(size, 16, async (i) => {
      await untilOk(
        () => stack.runtime.services.events.emit({ accountId: stack.accountId, livemode: false, type: EVENT_TYPE, data: { scenario: name, i }, eventId: eventIdOf(i) }),
        () => true,
      );
      emitted++;
      maybeFault();
    }),
  ]);
  progress(`${name}: all accepted`);
  await faulted;
  progress(`${name}: fault over`);

  const db = stack.database.db;
  const ids = new Set(eventIds);
  const finalStates = async () =>
    untilOk(async () => {
      const messages = await db
        .selectFrom('messages')
        .select(['status', sql<number>`count(*)::int`.as('n')])
        .where('body', 'like', `${name} sms %`)
        .groupBy('status')
        .execute();
      const rows = await db
        .selectFrom('messages')
        .select([sql<number>`count(*)::int`.as('rows'), sql<number>`count(distinct body)::int`.as('bodies')])
        .where('body', 'like', `${name} sms %`)
        .executeTakeFirstOrThrow();
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['status', sql<number>`count(*)::int`.as('n')])
        .where('event_id', 'in', eventIds)
        .groupBy('status')
        .execute();
      const deliveryRows = await db
        .selectFrom('webhook_deliveries')
        .select([sql<number>`count(*)::int`.as('rows'), sql<number>`count(distinct event_id)::int`.as('events')])
        .where('event_id', 'in', eventIds)
        .executeTakeFirstOrThrow();
      const attempts = await db
        .selectFrom('webhook_deliveries')
        .select(['attempt_count as attempts', sql<number>`count(*)::int`.as('n')])
        .where('event_id', 'in', eventIds)
        .where('status', '=', 'delivered')
        .groupBy('attempt_count')
        .orderBy('attempt_count')
        .execute();
      return { messages: byStatus(messages), messageRows: rows, deliveries: byStatus(deliveries), deliveryRows, attempts: Object.fromEntries(attempts.map((a) => [a.attempts, a.n])) };
    }, () => true);
  const received = () => stack.receiver.requests.map((r) => JSON.parse(r.rawBody.toString()).id as string).filter((id) => ids.has(id));
  const duplicateDeliveries = () => {
    const webhookIds = new Map<string, Set<string>>();
    for (const r of stack.receiver.requests) {
      const id = JSON.parse(r.rawBody.toString()).id as string;
      if (!ids.has(id)) continue;
      webhookIds.set(id, (webhookIds.get(id) ?? new Set()).add(String(r.headers['webhook-id'])));
    }
    const atReceiver = [...webhookIds.values()].reduce((n, set) => n + set.size - 1, 0);
    return atReceiver + (states.deliveryRows.rows - states.deliveryRows.events);
  };
  const bodies = new Set(Array.from({ length: size }, (_, i) => bodyOf(i)));
  const arrivedSms = () => [...stack.smsc.accepted, ...stack.smsc2.accepted].filter((s) => bodies.has(s.text)).map((s) => s.text);

  let last = '';
  let lastChange = Date.now();
  let states = await finalStates();
  for (;;) {
    states = await finalStates();
    const state = JSON.stringify([states.messages, states.deliveries, arrivedSms().length, received().length]);
    if ((states.messages.delivered ?? 0) === size && (states.deliveries.delivered ?? 0) === size && new Set(received()).size === size) break;
    if (state !== last) {
      progress(`${name}: messages, deliveries, SMSC arrivals, receiver requests`, { state });
      last = state;
      lastChange = Date.now();
    }
    if (Date.now() - lastChange > STALL_MS) break;
    await pause(500);
  }
  // Late duplicates (a resend after the counts were reached) show up here.
  await pause(2000);
  states = await finalStates();
  const sms = arrivedSms();
  const got = received();
  const smsArrived = new Set(sms).size;
  const deliveredStatus = states.messages.delivered ?? 0;
  const webhooksArrived = new Set(got).size;
  const deliveredDeliveries = states.deliveries.delivered ?? 0;
  return {
    seconds: round((performance.now() - started) / 1000, 1),
    sms: {
      sent: size,
      arrived: smsArrived,
      // Lost: not accepted by an SMSC, or not `delivered` in the database (its receipt never applied).
      lost: size - Math.min(smsArrived, deliveredStatus),
      // The same message accepted twice by the SMSCs, or stored twice (an API retry creating a second message).
      duplicated: sms.length - smsArrived + (states.messageRows.rows - states.messageRows.bodies),
      final_states: states.messages,
      // Submits of these messages an SMSC received and never answered (the drop mid-window).
      unanswered_submits: [...stack.smsc.submits, ...stack.smsc2.submits].filter((r) => bodies.has(r.text) && r.status === undefined).length,
      by_carrier: {
        smsc: stack.smsc.accepted.filter((s) => bodies.has(s.text)).length,
        smsc2: stack.smsc2.accepted.filter((s) => bodies.has(s.text)).length,
      },
    },
    webhooks: {
      sent: size,
      arrived: webhooksArrived,
      lost: size - Math.min(webhooksArrived, deliveredDeliveries),
      // The same event delivered as two deliveries (two Webhook-Ids, or two delivery rows for its one
      // endpoint): a duplicate a receiver could not recognise.
      duplicated: duplicateDeliveries(),
      // Attempt 1 sent again with the same Webhook-Id, by a worker that died (or lost the database)
      // between the receiver's answer and recording it: at least once, which receivers dedupe on Webhook-Id.
      resent_same_webhook_id: got.length - webhooksArrived,
      final_states: states.deliveries,
      delivered_at_attempt: states.attempts,
    },
  };
}

export type ChaosReport = Partial<Record<Scenario, Awaited<ReturnType<typeof runScenario>> | Awaited<ReturnType<typeof runBatchWorkerKill>>>>;

export async function runChaos(opts: { size: number; scenarios?: readonly Scenario[] }): Promise<ChaosReport> {
  const stack = await startStack();
  const report: ChaosReport = {};
  const faults: Record<Scenario, (ctx: FaultContext) => Promise<void>> = {
    async worker_kill_9() {
      progress('kill -9 the worker');
      stack.killWorker();
      await stack.startWorker();
      progress('worker restarted');
    },
    async postgres_cut_10s() {
      await stack.proxy.cut();
      await pause(OUTAGE_MS);
      await stack.proxy.restore();
    },
    async smsc_drop_second_carrier_down() {
      // Mid-window: the next submit is never answered and every session drops with submits in flight.
      stack.smsc.dropConnectionAt(1);
      await pollUntil('the SMSC to drop mid-window', () => !stack.smsc.dropPending, { timeoutMs: 60_000 });
      await stack.smsc.stop();
      progress('SMSC down; the second carrier is down too');
      await pause(OUTAGE_MS);
      await stack.smsc.start();
      progress('SMSC back');
    },
    // Run by runBatchWorkerKill (its fault is inside it).
    async message_batch_worker_kill_9() {},
    async receiver_down_1h({ eventIds }) {
      // Down for an hour of every delivery's own schedule (its retry workflow may start late on a
      // loaded machine): until each was refused at 0, 1m, 6m and 36m, then 24m more; the next attempt
      // is at 2h36m. At least an hour of the run's scaled clock, too.
      await stack.receiver.down();
      const downAt = Date.now();
      progress('receiver down');
      await pollUntil(
        'every delivery refused through its 36m attempt',
        () =>
          untilOk(async () => {
            const r = await stack.database.db
              .selectFrom('webhook_deliveries')
              .select(sql<number>`count(*)::int`.as('n'))
              .where('event_id', 'in', eventIds)
              .where('attempt_count', '>=', 4)
              .executeTakeFirstOrThrow();
            return r.n === eventIds.length;
          }, () => true),
        { timeoutMs: 30 * 60_000, intervalMs: 200 },
      );
      await pause(Math.max(HOUR_OF_WORKFLOW_TIME_MS - (Date.now() - downAt), 24 * 60_000 * WEBHOOK_RETRY_SCALE));
      await stack.receiver.up();
      progress('receiver back');
    },
  };
  try {
    for (const [index, scenario] of (opts.scenarios ?? SCENARIOS).entries()) {
      // The receiver is down before the first event: every first attempt meets it down, so the retries
      // run into the hour (a third of the way in, most first attempts were over already).
      report[scenario] =
        scenario === 'message_batch_worker_kill_9'
          ? await runBatchWorkerKill(
              { call: stack.call, db: stack.database.db, smscs: [stack.smsc, stack.smsc2], killWorker: stack.killWorker, startWorker: stack.startWorker, untilOk, progress, stallMs: STALL_MS },
              index,
              opts.size,
            )
          : await runScenario(stack, scenario, index, opts.size, faults[scenario], scenario === 'receiver_down_1h' ? 0 : undefined);
      progress(`${scenario}: done`, report[scenario]);
    }
  } finally {
    await stack.close();
  }
  return report;
}

if (require.main === module) {
  const size = Number(process.env.CHAOS_SIZE ?? 2000);
  const scenarios = process.env.CHAOS_SCENARIOS ? (process.env.CHAOS_SCENARIOS.split(',') as Scenario[]) : SCENARIOS;
  runChaos({ size, scenarios })
    .then((report) => {
      console.log(JSON.stringify({ chaos: report, size, webhook_retry_scale: round(WEBHOOK_RETRY_SCALE, 6), machine: machineInfo(), started_at: new Date(t0).toISOString() }));
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
