import { Context } from '@temporalio/activity';
import type { AttemptWebhookDeliveryInput, WebhookDeliveryService } from '../src/services/webhook-delivery.service';
import { asActivity } from './activity-errors';

export function createWebhookActivities(deps: { webhookDeliveries: WebhookDeliveryService }) {
  return {
    /** POSTs the signed event once and records the attempt. */
    async attemptWebhookDelivery(input: Omit<AttemptWebhookDeliveryInput, 'scheduledAt'>) {
      const scheduledAt = new Date(Context.current().info.currentAttemptScheduledTimestampMs);
      return asActivity(() => deps.webhookDeliveries.attemptDelivery({ ...input, scheduledAt }));
    },
  };
}
