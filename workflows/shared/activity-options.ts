import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/** Named activity option presets; every proxyActivities call uses one of these (STYLE §7). */
export const dbActivity: ActivityOptions = {
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * One outbound HTTP attempt (webhook delivery). The activity records its own outcome and returns it, so
 * Temporal retries only infrastructure faults (a worker killed mid-attempt, the database unreachable).
 */
export const webhookAttemptActivity: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
};

/**
 * Ingesting one source version (crawl, parse, chunk, index). Long: it heartbeats per page / batch, so a
 * dead worker is noticed within the heartbeat timeout. AppErrors (source_unreachable, unsupported_file)
 * are non-retryable; infrastructure faults are retried a few times.
 */
export const ingestionActivity: ActivityOptions = {
  startToCloseTimeout: '30m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '2m', maximumAttempts: 4 },
};

/**
 * Embedding a live source's passages (the semantic backfill). Long and CPU-bound on a local model: it
 * heartbeats per batch with the last ordinal done, and a retry resumes there. The embedding endpoint
 * being down is retried with backoff for a good while; the source stays searchable lexically meanwhile.
 */
export const embeddingActivity: ActivityOptions = {
  startToCloseTimeout: '4h',
  heartbeatTimeout: '5m',
  retry: { initialInterval: '10s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 30, nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * SMS delivery steps run as local activities (in the worker, recorded as markers): a message costs the
 * server a few history events instead of three per step, which is what lets thousands per minute flow.
 */
export const smsStepLocalActivity: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * Submitting an SMS through the carrier router. A retryable carrier failure (every carrier down, circuit
 * open) is retried with backoff for up to 3 days, so messages wait and go out when a carrier returns;
 * backoffs beyond 10 s become durable workflow timers.
 */
export const smsSubmitLocalActivity: LocalActivityOptions = {
  startToCloseTimeout: '60s',
  scheduleToCloseTimeout: '72h',
  localRetryThreshold: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', nonRetryableErrorTypes: ['resource_missing'] },
};
