import { type Kysely, Migrator } from 'kysely';
import { migrations } from './migrations';

/**
 * Runs every pending migration. `schema` names the Postgres schema the tables live in when it is not
 * `public` (tests use one per file); kysely needs it to find its own bookkeeping tables there.
 */
export async function migrateToLatestOrThrow(db: Kysely<any>, opts: { schema?: string } = {}): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(opts.schema ? { migrationTableSchema: opts.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}
