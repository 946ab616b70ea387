import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { DB } from './schema';

// INT8 (count(*), bigint columns) as JS numbers: every value we store fits in 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export interface Database {
  db: Kysely<DB>;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

export interface PostgresOptions {
  url: string;
  /** Postgres schema used as search_path (one per test file). */
  schema?: string;
  max?: number;
  onError?: (err: Error) => void;
}

export function connectPostgres(opts: PostgresOptions): Database {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    options: opts.schema ? `-c search_path=${opts.schema}` : undefined,
  });
  pool.on('error', (err) => opts.onError?.(err));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/** Embedded PostgreSQL (PGlite, WebAssembly) persisted in a folder: `npm start` with no DATABASE_URL. */
export async function connectPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}
