import { condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhook.activities';
import { webhookAttemptActivity } from './shared/activity-options';
import {
  cancelDeliverySignal,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from './shared/webhooks.contracts';

// A local activity: one attempt is a short HTTP call, and running it inside the workflow task saves two
// server round trips per delivery (the attempt still shows in the history as a marker with its result).
const { attemptWebhookDelivery } = proxyLocalActivities<ReturnType<typeof createWebhookActivities>>(webhookAttemptActivity);

/**
 * Delivers one event to one endpoint (or callback URL): an attempt, then a durable timer on the backoff
 * schedule, until a 2xx, the endpoint going away, or the schedule running out (delivery marked failed).
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  let cancelled = false;
  setHandler(cancelDeliverySignal, () => {
    cancelled = true;
  });
  for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
    const outcome = await attemptWebhookDelivery({
      deliveryId: input.deliveryId,
      attempt,
      isLastAttempt: attempt === WEBHOOK_MAX_ATTEMPTS,
      scheduledAtMs: Date.now(),
    });
    if (outcome.outcome === 'delivered') return { status: 'delivered', attempts: attempt };
    if (outcome.outcome === 'cancelled') return { status: 'cancelled', attempts: attempt - 1 };
    if (attempt === WEBHOOK_MAX_ATTEMPTS) break;
    // The signal only cuts the wait short: the next attempt sees the endpoint gone and ends as cancelled.
    await condition(() => cancelled, WEBHOOK_RETRY_DELAYS[attempt - 1]!);
    cancelled = false;
  }
  return { status: 'failed', attempts: WEBHOOK_MAX_ATTEMPTS };
}
