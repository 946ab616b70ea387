import { loadConfig } from './config/env';
import { openDatabase } from './db/open';
import { createLogger } from './observability/logger';
import { createRuntime } from './runtime';
import { installTemporalLogging } from './temporal/runtime-logging';

/** The Temporal worker alone; migrates the database on start (one worker at a time may do so). */
async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { role: 'worker' });
  installTemporalLogging(log);
  if (!config.temporal.address || !config.database.url) throw new Error('main.worker needs TEMPORAL_ADDRESS and DATABASE_URL');
  const database = await openDatabase(config, log);
  const runtime = await createRuntime({ config, db: database.db, log, temporalAddress: config.temporal.address });
  await runtime.startWorker();
  log.info({ taskQueue: config.temporal.taskQueue }, 'Worker polling');
  const stop = async () => {
    await runtime.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
