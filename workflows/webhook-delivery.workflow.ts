import { ApplicationFailure, condition, log, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhook.activities';
import { activityFailureCause } from './shared/activity-failures';
import { webhookAttemptActivity } from './shared/activity-options';
import {
  cancelDeliverySignal,
  WEBHOOK_MAX_ATTEMPTS,
  webhookRetrySchedule,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from './shared/webhooks.contracts';

// A local activity: one attempt is a short HTTP call, and running it inside the workflow task saves two
// server round trips per delivery (the attempt still shows in the history as a marker with its result).
const { attemptWebhookDelivery, failWebhookDelivery } = proxyLocalActivities<ReturnType<typeof createWebhookActivities>>(webhookAttemptActivity);

/**
 * A failed attempt worth waiting out (the database or the worker), not the delivery being gone. A local
 * activity whose retries ran out surfaces as its ApplicationFailure itself, not wrapped in ActivityFailure.
 */
const isInfrastructureFailure = (err: unknown) => {
  const failure = activityFailureCause(err);
  return !(failure instanceof ApplicationFailure && failure.nonRetryable);
};

/**
 * Retries one event delivery to one endpoint (or callback URL): wait the schedule's delay, attempt, until
 * a 2xx, the endpoint going away, or the schedule running out (delivery marked failed). The dispatcher
 * made attempt 1 and starts this run at attempt 2. An attempt that cannot run (database away) is tried
 * again every WEBHOOK_INFRA_RETRY_DELAY until the schedule's end, never ending the delivery early.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  let cancelled = false;
  setHandler(cancelDeliverySignal, () => {
    cancelled = true;
  });
  const first = input.firstAttempt ?? 1;
  const schedule = input.schedule ?? webhookRetrySchedule();
  const remainingSchedule = schedule.delaysMs.slice(Math.max(0, first - 2)).reduce((sum, d) => sum + d, 0);
  // The last attempt, too, gets an hour of tries when it cannot run.
  const scheduleEnd = Date.now() + remainingSchedule + schedule.outageGraceMs;

  for (let attempt = first; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
    if (attempt > 1) {
      // The signal only cuts the wait short: the next attempt sees the endpoint gone and ends as cancelled.
      await condition(() => cancelled, schedule.delaysMs[attempt - 2]!);
      cancelled = false;
    }
    const isLastAttempt = attempt === WEBHOOK_MAX_ATTEMPTS;
    let outcome;
    for (;;) {
      try {
        outcome = await attemptWebhookDelivery({ deliveryId: input.deliveryId, attempt, isLastAttempt, scheduledAtMs: Date.now() });
        break;
      } catch (err) {
        if (!isInfrastructureFailure(err)) throw err;
        if (Date.now() >= scheduleEnd) return failAfterOutage(input.deliveryId, attempt - 1, schedule.infraRetryDelayMs);
        log.warn('Webhook attempt could not run; trying again', { deliveryId: input.deliveryId, attempt, error: String(err) });
        await sleep(schedule.infraRetryDelayMs);
      }
    }
    if (outcome.outcome === 'delivered') return { status: 'delivered', attempts: attempt };
    if (outcome.outcome === 'cancelled') return { status: 'cancelled', attempts: attempt - 1 };
  }
  return { status: 'failed', attempts: WEBHOOK_MAX_ATTEMPTS };
}

/** The schedule ended while attempts could not run: the delivery ends `failed` (recorded once possible). */
async function failAfterOutage(deliveryId: string, attempts: number, retryDelayMs: number): Promise<WebhookDeliveryResult> {
  for (;;) {
    try {
      await failWebhookDelivery({ deliveryId });
      return { status: 'failed', attempts };
    } catch (err) {
      if (!isInfrastructureFailure(err)) throw err;
      await sleep(retryDelayMs);
    }
  }
}
