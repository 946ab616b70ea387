import { loadConfig } from './config/env';
import { openDatabase } from './db/open';
import { createLogger } from './observability/logger';
import { createRuntime } from './runtime';
import { installTemporalLogging } from './temporal/runtime-logging';

/** The API alone, against an existing Temporal cluster (TEMPORAL_ADDRESS) and Postgres (DATABASE_URL). */
async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { role: 'api' });
  installTemporalLogging(log);
  if (!config.temporal.address || !config.database.url) throw new Error('main.api needs TEMPORAL_ADDRESS and DATABASE_URL');
  const database = await openDatabase(config, log, { migrate: false });
  const runtime = await createRuntime({ config, db: database.db, log, temporalAddress: config.temporal.address });
  await runtime.startApi();
  log.info({ port: config.http.port }, 'API listening');
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
