import { loadConfig } from '../config/env';
import { createLogger } from '../observability/logger';
import { openDatabase } from './open';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const database = await openDatabase(config, log);
  log.info({ kind: database.kind }, 'Database migrated');
  await database.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
