import { type Kysely, Migrator } from 'kysely';
import { migrations } from './migrations';

/**
 * Runs every pending migration. `schema` names the Postgres schema the tables live in when it is not
 * `public` (tests use one per file); kysely needs it to find its own bookkeeping tables there.
 */
export async function migrateToLatestOrThrow(db: Kysely<any>, opts: { schema?: string } = {}): Promise<void> {
  // kysely's migrator finds its bookkeeping table by listing the tables of every schema: a schema that
  // another database user drops meanwhile fails that listing (3F000, e.g. a test file's schema, or a
  // second service sharing the database). Nothing was migrated then, so the run is tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(db, opts);
    } catch (err) {
      if (attempt >= 5 || !droppedMeanwhile(err)) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

const droppedMeanwhile = (err: unknown): boolean => {
  const cause = (err as { cause?: { code?: string } })?.cause;
  return cause?.code === '3F000' || /schema "[^"]+" does not exist/.test(String(cause ?? err));
};

async function migrateOnce(db: Kysely<any>, opts: { schema?: string }): Promise<void> {
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
