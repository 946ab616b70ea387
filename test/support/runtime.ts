import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Config } from '../../src/config/env';
import { silentLogger } from '../../src/observability/logger';
import { createRuntime, type Runtime } from '../../src/app/runtime';
import { buildTestConfig } from './config';
import { createTestDatabase, type TestDatabase } from './db';
import { createDevServerEnv, workflowBundle } from './temporal';

export interface DevRuntime {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  runtime: Runtime;
  /** Set when `api: true`. */
  baseUrl?: string;
  close(): Promise<void>;
}

/**
 * The production wiring (src/app/runtime.ts: the worker unless `worker: false`, and optionally the API) on a real Temporal dev server and
 * a Postgres schema of its own: for end-to-end tests and benchmarks.
 */
export async function startDevRuntime(opts: { label: string; api?: boolean; worker?: boolean; config?: Partial<Config> }): Promise<DevRuntime> {
  const env = await createDevServerEnv();
  const database = await createTestDatabase(opts.label);
  const runtime = await createRuntime({
    config: buildTestConfig(opts.config),
    db: database.db,
    listen: database.listen,
    log: silentLogger(),
    temporalAddress: env.address,
    workflowBundle: await workflowBundle(),
  });
  if (opts.worker !== false) await runtime.startWorker();
  let baseUrl: string | undefined;
  if (opts.api) {
    const server = await runtime.startApi(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return {
    env,
    database,
    runtime,
    baseUrl,
    async close() {
      await runtime.close();
      await database.destroy();
      await env.teardown();
    },
  };
}
