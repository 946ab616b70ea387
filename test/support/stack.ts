import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Config } from '../../src/config/env';
import { createApp } from '../../src/app/create-app';
import { silentLogger, type Logger } from '../../src/observability/logger';
import { createMetrics } from '../../src/observability/metrics';
import { createActivities } from '../../activities';
import { createServices, type Services } from '../../src/app/container';
import type { SmsCarriers } from '../../src/sms/carrier';
import { WorkflowGateway } from '../../src/temporal/workflow-gateway';
import { createCarrierRouter } from '../../src/sms/carrier-registry';
import { buildSmsCarriersConfig, CarriersConfigSchema } from '../../src/config/sms-carriers';
import { buildTestConfig } from './config';
import { pollUntil } from './poll';
import type { SmscSimulator } from './smsc-simulator';
import { createTestDatabase, type TestDatabase } from './db';
import { connectPglite } from '../../src/db/database';
import { migrateToLatestOrThrow } from '../../src/db/migrate';
import { startOperatorServer } from '../../src/cli/operator-server';
import { createDevServerEnv, createTimeSkippingEnv, workflowBundle } from './temporal';

export interface TestStack {
  config: Config;
  database: TestDatabase;
  services: Services;
  gateway: WorkflowGateway;
  app: ReturnType<typeof createApp>;
  /** Base URL of the API listening on an ephemeral loopback port. */
  baseUrl: string;
  worker?: Worker;
  /** A fresh account with a test key, for isolation between tests. */
  newAccount(name?: string, mode?: 'test' | 'live'): Promise<{ accountId: string; apiKey: string }>;
  close(): Promise<void>;
}

/**
 * The real service wired for a test file: a schema of its own in the real Postgres, the real app on a
 * loopback port, and (unless `worker: false`) a worker on the given Temporal environment.
 */
export async function startTestStack(opts: {
  label: string;
  env: TestWorkflowEnvironment;
  worker?: boolean;
  config?: Partial<Config>;
  /** The SMS carrier router (a fake, or the real one over the sandbox / SMSC simulator). */
  smsCarriers?: SmsCarriers;
  /** The service log (default: silent). */
  log?: Logger;
  /**
   * The embedded database (PGlite) in this folder instead of a Postgres schema, held as `npm start` holds
   * it: its lock taken and the CLI's operator endpoint served (src/main.ts does the same).
   */
  pgliteDir?: string;
  /** The clock business hours are read at (default: the system's). */
  clock?: () => Date;
}): Promise<TestStack> {
  const config = buildTestConfig(opts.config);
  const database = opts.pgliteDir ? await openEmbeddedDatabase(opts.pgliteDir) : await createTestDatabase(opts.label);
  const log = opts.log ?? silentLogger();
  const metrics = createMetrics();
  const gateway = new WorkflowGateway(opts.env.client, config.temporal.taskQueue);
  const services = createServices({ config, db: database.db, workflows: gateway, log, metrics, smsCarriers: opts.smsCarriers, clock: opts.clock });
  const app = createApp({ config, db: database.db, services, log, metrics, readiness: [] });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const operator = database.dataDirLock ? await startOperatorServer({ services, lock: database.dataDirLock, log }) : undefined;

  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  if (opts.worker !== false) {
    worker = await Worker.create({
      connection: opts.env.nativeConnection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      workflowBundle: await workflowBundle(),
      activities: createActivities(services),
    });
    running = worker.run();
    await services.inboundSms.startCarriers();
    await services.webhookDispatcher.start({ listen: database.listen });
    await services.smsDispatcher.start({ listen: database.listen });
  }

  return {
    config,
    database,
    services,
    gateway,
    app,
    baseUrl,
    worker,
    async newAccount(name = 'Test account', mode: 'test' | 'live' = 'test') {
      const account = await services.accounts.createAccount({ name });
      const { secret } = await services.accounts.createApiKey({ accountId: account.id, mode });
      return { accountId: account.id, apiKey: secret };
    },
    async close() {
      await operator?.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      if (worker) {
        await services.webhookDispatcher.stop();
        await services.smsDispatcher.stop();
        worker.shutdown();
        await running;
        await services.inboundSms.stopCarriers();
      }
      await database.destroy();
    },
  };
}

/** PGlite in `dir`, migrated, as a TestDatabase (its schema the default one; destroy closes it and releases the folder). */
async function openEmbeddedDatabase(dir: string): Promise<TestDatabase> {
  const database = await connectPglite(dir, { holder: 'npm start' });
  await migrateToLatestOrThrow(database.db);
  return { ...database, schema: 'public', destroy: () => database.close() };
}

/**
 * Registers this test file's `before`/`after` hooks: a Temporal environment (time-skipping test server
 * unless `temporal: 'dev-server'`) and a test stack on it. Read `ctx.env` and `ctx.stack` inside tests.
 */
export function useTestStack(
  opts: Omit<Parameters<typeof startTestStack>[0], 'env'> & { temporal?: 'time-skipping' | 'dev-server' },
): { env: TestWorkflowEnvironment; stack: TestStack } {
  const ctx = {} as { env: TestWorkflowEnvironment; stack: TestStack };
  before(async () => {
    ctx.env = opts.temporal === 'dev-server' ? await createDevServerEnv() : await createTimeSkippingEnv();
    ctx.stack = await startTestStack({ ...opts, env: ctx.env });
  });
  after(async () => {
    await ctx.stack?.close();
    await ctx.env?.teardown();
  });
  return ctx;
}

/**
 * The stack over the real carrier router, whose carriers `carriersFor` lists given the port of the local
 * SMSC simulator (started here); resolves once an SMPP carrier is bound to it.
 */
export async function startStackOverSmsc(opts: {
  label: string;
  env: TestWorkflowEnvironment;
  smsc: SmscSimulator;
  carriersFor: (smscPort: number) => unknown[];
  config?: Partial<Config>;
  clock?: () => Date;
}): Promise<TestStack> {
  const port = await opts.smsc.start();
  const config = buildTestConfig({ sms: buildSmsCarriersConfig(CarriersConfigSchema.parse(opts.carriersFor(port)), undefined), ...opts.config });
  const stack = await startTestStack({ label: opts.label, env: opts.env, config, smsCarriers: createCarrierRouter(config, silentLogger()), clock: opts.clock });
  await pollUntil('the SMPP carrier to bind to the simulator', () => opts.smsc.boundSessions > 0, { intervalMs: 5, timeoutMs: 5000 });
  return stack;
}
