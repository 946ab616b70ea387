import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { pgListen } from '../platform/pg-listen';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock';
import type { DB } from './schema';

// INT8 (count(*), bigint columns) as JS numbers: every value we store fits in 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

import type { ListenFn } from '../platform/outbox-pump';

export type { ListenFn };

export interface Database {
  db: Kysely<DB>;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
  listen: ListenFn;
  /** PGlite: this process's lock on the data folder (released by close). */
  dataDirLock?: DataDirLock;
}

export interface PostgresOptions {
  url: string;
  /** Postgres schema used as search_path (one per test file). */
  schema?: string;
  max?: number;
  onError?: (err: Error) => void;
  /** Give up opening a connection after this long (the database away answers fast, not never). */
  connectTimeoutMs?: number;
  /** Server-side statement timeout; the client gives up on a statement 5 s later (a dead link). */
  statementTimeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

export function connectPostgres(opts: PostgresOptions): Database {
  const statementTimeoutMs = opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    query_timeout: statementTimeoutMs + 5000,
    options: [
      opts.schema ? `-c search_path=${opts.schema}` : '',
      `-c statement_timeout=${statementTimeoutMs}`,
      '-c idle_in_transaction_session_timeout=60000',
    ].filter(Boolean).join(' '),
  });
  pool.on('error', (err) => opts.onError?.(err));
  // pg-pool listens for errors only on idle clients: a checked-out client (inside a transaction) whose
  // connection drops would emit an unhandled 'error' and crash the process. Its queries still reject.
  pool.on('connect', (client) => client.on('error', (err) => opts.onError?.(err)));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const listen: ListenFn = (channel, onNotify) => listenPostgres(opts, channel, onNotify);
  return { db, kind: 'postgres', close: () => db.destroy(), listen };
}

/** How long `listen` waits for its first subscription before it lets the caller go on (the sweeps cover meanwhile). */
const FIRST_LISTEN_WAIT_MS = 5000;

/**
 * A dedicated connection LISTENing on `channel` (platform/pg-listen: reconnected with backoff when it
 * drops; `onNotify` runs once reconnected, since notifications sent meanwhile are gone).
 */
async function listenPostgres(opts: PostgresOptions, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  const listener = pgListen({
    url: opts.url,
    channel,
    onNotification: () => onNotify(),
    onConnected: (reconnected) => reconnected && onNotify(),
    onDisconnected: (err) => err && opts.onError?.(err),
  });
  await listener.readyWithin(FIRST_LISTEN_WAIT_MS);
  return () => listener.close();
}

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) persisted in a folder: `npm start` with no DATABASE_URL. One
 * process at a time: it takes the folder's lock first (DataDirInUseError while a live process holds it),
 * and close releases it. `holder` says what holds it (`npm start`, `npm run cli`) to whoever finds it held.
 */
export async function connectPglite(dataDir: string, opts: { holder: string }): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  mkdirSync(dataDir, { recursive: true });
  const dataDirLock = acquireDataDirLock(dataDir, { holder: opts.holder });
  let client: InstanceType<typeof PGlite>;
  try {
    client = await PGlite.create(dataDir);
  } catch (err) {
    dataDirLock.release();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  const listen: ListenFn = async (channel, onNotify) => {
    const unlisten = await client.listen(channel, () => onNotify());
    return () => unlisten();
  };
  const close = async () => {
    try {
      await db.destroy();
    } finally {
      dataDirLock.release();
    }
  };
  return { db, kind: 'pglite', close, listen, dataDirLock };
}
