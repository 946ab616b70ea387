import { z } from 'zod';

/** Webhooks: attempt timeout, the dispatcher (worker), the retry schedule's scale. */
export const webhooksConfig = z
  .object({
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /** Webhook dispatcher (worker): first attempts in flight overall and per endpoint, outbox sweep period. */
    WEBHOOK_DISPATCH_CONCURRENCY: z.coerce.number().int().positive().default(64),
    WEBHOOK_DISPATCH_PER_ENDPOINT: z.coerce.number().int().positive().default(8),
    WEBHOOK_DISPATCH_SWEEP_MS: z.coerce.number().int().positive().default(1000),
    /**
     * Multiplies every delay of the webhook retry schedule (1m, 5m, … 20h, and the outage retries): 1 in
     * production; the chaos run uses 1/360 so an hour of schedule passes in 10 s on a real Temporal server.
     */
    WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  })
  .transform((e) => ({
    webhooks: { timeoutMs: e.WEBHOOK_TIMEOUT_MS },
    webhookDispatch: {
      concurrency: e.WEBHOOK_DISPATCH_CONCURRENCY,
      perEndpoint: e.WEBHOOK_DISPATCH_PER_ENDPOINT,
      sweepMs: e.WEBHOOK_DISPATCH_SWEEP_MS,
      // A live dispatcher renews its claims every third of this: only a dead worker's claims expire,
      // and its deliveries wait this long (at least 3 attempt timeouts).
      leaseMs: Math.max(15_000, 3 * e.WEBHOOK_TIMEOUT_MS),
      retryScale: e.WEBHOOK_RETRY_SCALE,
    },
  }));
