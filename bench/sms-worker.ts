/**
 * The worker half of `npm run bench:sms`, run as its own process like the scaled-out deployment
 * (src/main.worker.ts): Temporal worker + carriers, on the bench's database schema and SMSC simulator.
 * Input: BENCH_SMS_WORKER (JSON: temporalAddress, schema, taskQueue, smscPort).
 */
import { buildSmsCarriersConfig, CarriersConfigSchema } from '../src/channels/sms/carriers/carrier-config';
import { connectPostgres } from '../src/db/database';
import { silentLogger } from '../src/observability/logger';
import { createRuntime } from '../src/app/runtime';
import { buildTestConfig, TEST_DATABASE_URL } from '../test/support/config';
import { workflowBundle } from '../test/support/temporal';

export interface SmsBenchWorkerInput {
  temporalAddress: string;
  schema: string;
  taskQueue: string;
  smscPort: number;
  /** Postgres to use instead of the test server (the chaos script's proxy). */
  databaseUrl?: string;
  /** How long an unanswered submit waits for its receipt (chaos: short). */
  uncertainWaitSeconds?: number;
}

export function benchSmsConfig(input: Pick<SmsBenchWorkerInput, 'taskQueue' | 'smscPort' | 'uncertainWaitSeconds'>) {
  const carriers = CarriersConfigSchema.parse([
    { name: 'smsc', type: 'smpp', host: '127.0.0.1', port: input.smscPort, system_id: 'test', password: 'secret', max_mps: 5000, window: 64 },
  ]);
  const base = buildTestConfig({ sms: buildSmsCarriersConfig(carriers, undefined), rateLimit: { perSecond: 100_000, anonymousPerSecond: 1000 } });
  const messaging = { ...base.messaging, uncertainSubmitWaitSeconds: input.uncertainWaitSeconds ?? base.messaging.uncertainSubmitWaitSeconds };
  return { ...base, messaging, temporal: { ...base.temporal, taskQueue: input.taskQueue } };
}

async function main() {
  const input = JSON.parse(process.env.BENCH_SMS_WORKER ?? '') as SmsBenchWorkerInput;
  const database = connectPostgres({ url: input.databaseUrl ?? TEST_DATABASE_URL, schema: input.schema, max: 20, connectTimeoutMs: 2000 });
  const runtime = await createRuntime({
    config: benchSmsConfig(input),
    db: database.db,
    listen: database.listen,
    log: silentLogger(),
    temporalAddress: input.temporalAddress,
    workflowBundle: await workflowBundle(),
  });
  await runtime.startWorker();
  process.send?.('ready');
  process.on('message', async (m) => {
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
