import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import pg from 'pg';
import { connectPostgres, type Database } from '../../src/db/database';
import { migrateToLatestOrThrow } from '../../src/db/migrate';
import { TEST_DATABASE_URL } from './config';

export interface TestDatabase extends Database {
  schema: string;
  /** Drops the schema and closes the pool. */
  destroy(): Promise<void>;
}

/**
 * A fresh Postgres schema for one test file, migrated to latest (atproto's dbPostgresSchema). Files run in
 * parallel without seeing each other's rows.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const schema = `t_${path.basename(label).replace(/\W+/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`.toLowerCase();
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  const database = connectPostgres({ url: TEST_DATABASE_URL, schema });
  await migrateToLatestOrThrow(database.db, { schema });
  return {
    ...database,
    schema,
    async destroy() {
      await database.close();
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema "${schema}" cascade`);
      await c.end();
    },
  };
}

/**
 * Records the statements sent through the Kysely instance it is plugged into (`db.withPlugin(counter)`),
 * by kind: a test's count of database round trips.
 */
export class StatementCounter implements KyselyPlugin {
  kinds: string[] = [];
  get count() {
    return this.kinds.length;
  }
  reset() {
    this.kinds = [];
  }
  transformQuery(args: PluginTransformQueryArgs) {
    this.kinds.push(args.node.kind.replace(/QueryNode$|Node$/, '').toLowerCase());
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result;
  }
}
