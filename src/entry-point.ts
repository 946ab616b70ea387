import { loadConfig } from './config/env';
import { openDatabase } from './db/open';
import { createLogger } from './observability/logger';
import { createRuntime } from './app/runtime';
import { installTemporalLogging } from './temporal/runtime-logging';

/**
 * Runs one role of the scaled-out deployment against an existing Temporal cluster and Postgres server:
 * the API (`src/main.api.ts`) or the worker (`src/main.worker.ts`, which also migrates the database).
 */
export function runRole(role: 'api' | 'worker'): void {
  const main = async () => {
    const config = loadConfig();
    const log = createLogger(config.logLevel, { role });
    installTemporalLogging(log);
    if (!config.temporal.address || !config.database.url) {
      throw new Error(`the ${role} entry point needs TEMPORAL_ADDRESS and DATABASE_URL (npm start runs everything in one process)`);
    }
    if (config.embeddings.enabled && !config.embeddings.url) {
      throw new Error(`the ${role} entry point needs EMBEDDINGS_URL (an OpenAI-compatible embeddings endpoint) or EMBEDDINGS=off`);
    }
    const database = await openDatabase(config, log, { migrate: role === 'worker' });
    const runtime = await createRuntime({ config, db: database.db, listen: database.listen, log, temporalAddress: config.temporal.address });
    if (role === 'worker') {
      await runtime.startWorker();
      log.info({ taskQueue: config.temporal.taskQueue }, 'Worker polling');
    } else {
      await runtime.startApi();
      log.info({ port: config.http.port }, 'API listening');
    }
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'Shutting down');
      setTimeout(() => process.exit(1), 45_000).unref();
      await runtime.close().catch((err) => log.error({ err }, 'Runtime close failed'));
      await database.close().catch(() => undefined);
      process.exit(0);
    };
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
  };
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
