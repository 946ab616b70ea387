import type { AttemptWebhookDeliveryInput, WebhookDeliveryService } from '../src/webhooks/webhook-delivery.service';
import { asActivity } from './activity-errors';

export function createWebhookActivities(deps: { webhookDeliveries: WebhookDeliveryService }) {
  return {
    /** POSTs the signed event once and records the attempt (as of the workflow's clock, `scheduledAtMs`). */
    async attemptWebhookDelivery(input: Omit<AttemptWebhookDeliveryInput, 'scheduledAt'> & { scheduledAtMs: number }) {
      const { scheduledAtMs, ...rest } = input;
      return asActivity(() => deps.webhookDeliveries.attemptDelivery({ ...rest, scheduledAt: new Date(scheduledAtMs) }));
    },
    /** Ends a delivery `failed` whose schedule ran out while its attempts could not run. */
    async failWebhookDelivery(input: { deliveryId: string }) {
      return asActivity(() => deps.webhookDeliveries.failDelivery(input));
    },
  };
}
