import type { Config } from '../config/env';
import type { Logger } from '../observability/logger';
import { connectPglite, connectPostgres, type Database } from './database';
import { migrateToLatestOrThrow } from './migrate';

/**
 * DATABASE_URL when set, else embedded PGlite under the data folder (its lock taken for `holder`, default
 * `npm start`; DataDirInUseError while another live process holds it); migrated to latest.
 */
export async function openDatabase(config: Config, log: Logger, opts: { migrate?: boolean; holder?: string } = {}): Promise<Database> {
  const database = config.database.url
    ? connectPostgres({
        url: config.database.url,
        onError: (err) => log.error({ err }, 'Postgres pool error'),
        connectTimeoutMs: config.database.connectTimeoutMs,
        statementTimeoutMs: config.database.statementTimeoutMs,
      })
    : await connectPglite(config.database.pgliteDir, { holder: opts.holder ?? 'npm start' });
  try {
    if (opts.migrate ?? true) await migrateToLatestOrThrow(database.db);
  } catch (err) {
    await database.close().catch(() => undefined);
    throw err;
  }
  return database;
}
