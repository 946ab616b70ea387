import { z } from 'zod';

/** PostgreSQL: a server when DATABASE_URL is set, else embedded PGlite under DATA_DIR (see loadConfig). */
export const databaseConfig = z
  .object({
    /** PostgreSQL server; when absent `npm start` uses embedded PGlite under DATA_DIR. */
    DATABASE_URL: z.string().optional(),
    /** Postgres: give up opening a connection after this long; server-side statement timeout. */
    DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
    DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  })
  .transform((e) => ({
    database: {
      url: e.DATABASE_URL || undefined,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS as number | undefined,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS as number | undefined,
    },
  }));
