import { loadConfig } from './config/env';
import { DataDirInUseError, readDataDirHolder, type DataDirHolder } from './db/data-dir-lock';
import { openDatabase } from './db/open';
import { createLogger } from './observability/logger';
import { runCliCommand, type CliResult } from './cli/cli-commands';
import { buildCliServices } from './cli/cli-services';
import { forwardToService, heldMessage, refused } from './cli/operator-client';

/**
 * `npm run cli`: operator commands. With DATABASE_URL, on that server directly (many writers are fine
 * there). With the embedded PGlite, one process opens it at a time: while `npm start` holds it, the
 * command goes through the service (its operator endpoint runs it on the service's own database); while
 * anything else holds it, or the service does not answer, the CLI refuses and does nothing.
 */
async function main(): Promise<CliResult> {
  const config = loadConfig();
  const argv = process.argv.slice(2);
  const dir = config.database.pgliteDir;
  const throughHolder = (holder: DataDirHolder) =>
    holder.operator_url
      ? forwardToService(dir, { ...holder, operator_url: holder.operator_url }, argv)
      : Promise.resolve(refused(heldMessage(dir, holder, holder.holder === 'npm start' ? 'which is still starting' : 'which takes no commands')));
  if (!config.database.url) {
    const holder = readDataDirHolder(dir);
    if (holder) return throughHolder(holder);
  }
  let database;
  try {
    database = await openDatabase(config, createLogger('warn'), { holder: 'npm run cli' });
  } catch (err) {
    // The service (or another CLI) took the folder between the look above and the open.
    if (err instanceof DataDirInUseError) return throughHolder(err.current);
    throw err;
  }
  const services = buildCliServices({ config, db: database.db });
  try {
    return await runCliCommand(argv, services);
  } finally {
    await services.close();
    await database.close();
  }
}

main().then(
  (result) => {
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    // Set once everything is closed: PGlite's runtime resets process.exitCode when it shuts down.
    process.exitCode = result.exitCode;
  },
  (err) => {
    console.error(err.message ?? err);
    process.exit(1);
  },
);
