import { loadConfig } from './config/env';
import { openDatabase } from './db/open';
import { createLogger } from './observability/logger';
import { runCliCommand, type CliResult } from './cli/cli-commands';
import { buildCliServices } from './cli/cli-services';

/** Operator commands against the configured database (stop \`npm start\` first when it uses embedded PGlite). */
async function main(): Promise<CliResult> {
  const config = loadConfig();
  const database = await openDatabase(config, createLogger('warn'));
  const services = buildCliServices({ config, db: database.db });
  try {
    return await runCliCommand(process.argv.slice(2), services);
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
