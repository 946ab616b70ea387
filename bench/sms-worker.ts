/**
 * The worker half of `npm run bench:sms`, run as its own process like the scaled-out deployment
 * (src/main.worker.ts): Temporal worker + carriers, on the bench's database schema and SMSC simulator.
 * Input: BENCH_SMS_WORKER (JSON: temporalAddress, schema, taskQueue, smscPort).
 */
import { readFileSync } from 'node:fs';
import { buildSmsCarriersConfig, CarriersConfigSchema } from '../src/config/sms-carriers';
import { connectPostgres } from '../src/db/database';
import { silentLogger } from '../src/observability/logger';
import { createRuntime } from '../src/app/runtime';
import { buildTestConfig, TEST_DATABASE_URL } from '../test/support/config';
import { workflowBundle } from '../test/support/temporal';
import { countRoundTrips, resetRoundTrips, roundTrips, roundTripsByStatement } from './sms-profile';

export interface SmsBenchWorkerInput {
  temporalAddress: string;
  schema: string;
  taskQueue: string;
  smscPort: number;
  /** Postgres to use instead of the test server (the chaos script's proxy). */
  databaseUrl?: string;
  /** How long an unanswered submit waits for its receipt (chaos: short). */
  uncertainWaitSeconds?: number;
  /** A second SMPP carrier (tried after the first), on this SMSC port (chaos). */
  secondSmscPort?: number;
  /** A workflow bundle built by the parent (chaos: a restarted worker does not bundle again). */
  workflowBundlePath?: string;
  /** WEBHOOK_RETRY_SCALE (chaos: hours of retry schedule in seconds). */
  webhookRetryScale?: number;
}

type BenchConfigInput = Pick<SmsBenchWorkerInput, 'taskQueue' | 'smscPort' | 'uncertainWaitSeconds' | 'secondSmscPort' | 'webhookRetryScale'>;

export function benchSmsConfig(input: BenchConfigInput) {
  const smpp = { type: 'smpp', host: '127.0.0.1', system_id: 'test', password: 'secret', max_mps: 5000, window: 64 } as const;
  const carriers = CarriersConfigSchema.parse([
    { ...smpp, name: 'smsc', port: input.smscPort, priority: 10 },
    ...(input.secondSmscPort ? [{ ...smpp, name: 'smsc2', port: input.secondSmscPort, priority: 20 }] : []),
  ]);
  const base = buildTestConfig({ sms: buildSmsCarriersConfig(carriers, undefined), rateLimit: { perSecond: 100_000, anonymousPerSecond: 1000 } });
  const messaging = { ...base.messaging, uncertainSubmitWaitSeconds: input.uncertainWaitSeconds ?? base.messaging.uncertainSubmitWaitSeconds };
  const webhookDispatch = { ...base.webhookDispatch, retryScale: input.webhookRetryScale ?? base.webhookDispatch.retryScale };
  return { ...base, messaging, webhookDispatch, temporal: { ...base.temporal, taskQueue: input.taskQueue } };
}

async function main() {
  const input = JSON.parse(process.env.BENCH_SMS_WORKER ?? '') as SmsBenchWorkerInput;
  countRoundTrips();
  const database = connectPostgres({ url: input.databaseUrl ?? TEST_DATABASE_URL, schema: input.schema, max: 20, connectTimeoutMs: 2000 });
  const runtime = await createRuntime({
    config: benchSmsConfig(input),
    db: database.db,
    listen: database.listen,
    log: silentLogger(),
    temporalAddress: input.temporalAddress,
    workflowBundle: input.workflowBundlePath ? { code: readFileSync(input.workflowBundlePath, 'utf8') } : await workflowBundle(),
  });
  await runtime.startWorker();
  process.send?.('ready');
  process.on('message', async (m) => {
    // The bench's round-trip window: 'reset' when the first message is posted, 'count' once all are delivered.
    if (m === 'reset') resetRoundTrips();
    if (m === 'count') process.send?.({ roundTrips: roundTrips(), statements: roundTripsByStatement() });
    if (m !== 'stop') return;
    await runtime.close();
    await database.close();
    process.exit(0);
  });
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
