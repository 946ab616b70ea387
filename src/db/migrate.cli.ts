import { loadConfig } from '../config/env';
import { createLogger } from '../observability/logger';
import { DataDirInUseError } from './data-dir-lock';
import { openDatabase } from './open';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const database = await openDatabase(config, log, { holder: 'npm run db:migrate' });
  log.info({ kind: database.kind }, 'Database migrated');
  await database.close();
}

main().catch((err) => {
  // `npm start` holds the embedded database (and migrated it when it started).
  console.error(err instanceof DataDirInUseError ? `${err.message}: nothing was migrated (npm start migrates when it starts).` : err);
  process.exit(1);
});
