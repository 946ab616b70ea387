import type { ActivityOptions } from '@temporalio/workflow';

/** Named activity option presets; every proxyActivities call uses one of these (STYLE §7). */
export const dbActivity: ActivityOptions = {
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * One outbound HTTP attempt (webhook delivery). The activity records its own outcome and returns it, so
 * Temporal retries only infrastructure faults (a worker killed mid-attempt, the database unreachable).
 */
export const webhookAttemptActivity: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
};
