import type { AttemptWebhookDeliveryInput, WebhookDeliveryService } from '../src/services/webhook-delivery.service';
import { asActivity } from './activity-errors';

export function createWebhookActivities(deps: { webhookDeliveries: WebhookDeliveryService }) {
  return {
    /** POSTs the signed event once and records the attempt. */
    async attemptWebhookDelivery(input: AttemptWebhookDeliveryInput) {
      return asActivity(() => deps.webhookDeliveries.attemptDelivery(input));
    },
  };
}
