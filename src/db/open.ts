import type { Config } from '../config/env';
import type { Logger } from '../observability/logger';
import { connectPglite, connectPostgres, type Database } from './database';
import { migrateToLatestOrThrow } from './migrate';

/** DATABASE_URL when set, else embedded PGlite under the data folder; migrated to latest. */
export async function openDatabase(config: Config, log: Logger, opts: { migrate?: boolean } = {}): Promise<Database> {
  const database = config.database.url
    ? connectPostgres({
        url: config.database.url,
        onError: (err) => log.error({ err }, 'Postgres pool error'),
        connectTimeoutMs: config.database.connectTimeoutMs,
        statementTimeoutMs: config.database.statementTimeoutMs,
      })
    : await connectPglite(config.database.pgliteDir);
  if (opts.migrate ?? true) await migrateToLatestOrThrow(database.db);
  return database;
}
