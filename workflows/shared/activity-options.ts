import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/** Named activity option presets; every proxyActivities call uses one of these (STYLE §7). */
export const dbActivity: ActivityOptions = {
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * One outbound HTTP attempt (webhook delivery). The activity records its own outcome and returns it, so
 * Temporal retries only infrastructure faults (a worker killed mid-attempt, the database unreachable):
 * a few quick retries here, then the workflow waits on a durable timer and tries again until the end of
 * the delivery's schedule (WEBHOOK_INFRA_RETRY_DELAY).
 */
export const webhookAttemptActivity: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 3, nonRetryableErrorTypes: ['resource_missing'] },
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
