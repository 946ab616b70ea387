import { z } from 'zod';
import { bool } from './env-values';

/** localhost, 127.0.0.0/8, ::1 and 0.0.0.0: hosts a customer's phone or mail client cannot reach. */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0.0.0.0' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** /metrics: its own listener (port), or behind a token, or loopback callers only. */
export interface MetricsConfig {
  port?: number;
  host: string;
  token?: string;
}

/** The API's listener, request limits, outbound network policy and /metrics. */
export const httpConfig = z
  .object({
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Public base URL of the API, used for links the service hands out (short links, docs). */
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** JSON request bodies: default cap, and the cap of the few routes that take bulk data (records). */
    HTTP_JSON_LIMIT_BYTES: z.coerce.number().int().positive().default(256_000),
    HTTP_JSON_LARGE_LIMIT_BYTES: z.coerce.number().int().positive().default(10_000_000),
    /** Express `trust proxy`: false (default; the client address is the peer), true, a hop count or subnets. */
    TRUST_PROXY: z
      .string()
      .default('false')
      .transform((v): boolean | number | string => (v === 'true' ? true : v === 'false' || v === '' ? false : /^\d+$/.test(v) ? Number(v) : v)),
    /** Let outbound calls (webhooks, tools, sources) reach loopback/private addresses and plain http. */
    ALLOW_PRIVATE_NETWORK: bool.default(false),
    /** Requests per second allowed per API key (token bucket; burst is twice this). */
    RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
    /** Requests per second allowed per client address without a valid API key (burst is twice this). */
    ANONYMOUS_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
    /** Requests per second allowed per publishable key, all its visitors together (burst is twice this). */
    PUBLISHABLE_KEY_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(50),
    /** Requests per second allowed per website visitor of a publishable key (burst is twice this). */
    VISITOR_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(3),
    /** /metrics: on its own listener when METRICS_PORT is set (and not on the API port), else behind METRICS_TOKEN when set, else loopback callers only. */
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    METRICS_HOST: z.string().default('127.0.0.1'),
    METRICS_TOKEN: z.string().min(16).optional(),
  })
  .transform((e) => ({
    http: {
      host: e.HOST,
      port: e.PORT,
      publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST}:${e.PORT}`,
      /**
       * Links at publicBaseUrl open on this machine only (PUBLIC_BASE_URL unset, or naming a loopback host):
       * live mode hands customers none of them (src/domain/public-links.ts).
       */
      publicBaseUrlIsLoopback: e.PUBLIC_BASE_URL === undefined || isLoopbackHost(new URL(e.PUBLIC_BASE_URL).hostname),
      jsonLimitBytes: e.HTTP_JSON_LIMIT_BYTES,
      jsonLargeLimitBytes: e.HTTP_JSON_LARGE_LIMIT_BYTES,
      trustProxy: e.TRUST_PROXY,
    },
    network: { allowPrivate: e.ALLOW_PRIVATE_NETWORK },
    rateLimit: { perSecond: e.RATE_LIMIT_PER_SECOND, anonymousPerSecond: e.ANONYMOUS_RATE_LIMIT_PER_SECOND },
    visitorRateLimit: { perKeyPerSecond: e.PUBLISHABLE_KEY_RATE_LIMIT_PER_SECOND, perVisitorPerSecond: e.VISITOR_RATE_LIMIT_PER_SECOND },
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST, token: e.METRICS_TOKEN || undefined } as MetricsConfig,
  }));
