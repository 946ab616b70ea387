import { defineSignal } from '@temporalio/workflow';
import { defineWorkflowContract } from './workflow-contract';

export interface WebhookDeliveryInput {
  deliveryId: string;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'failed' | 'cancelled';
  attempts: number;
}

/** Delivers one event to one endpoint (or callback URL), retrying on the backoff schedule. */
export const webhookDeliveryWorkflowContract = defineWorkflowContract<WebhookDeliveryInput, WebhookDeliveryResult>('webhookDeliveryWorkflow');

/** Stops a delivery's retry loop (its endpoint was disabled or deleted). */
export const cancelDeliverySignal = defineSignal('cancelDelivery');

/**
 * Delays between webhook delivery attempts: exponential backoff over about 3 days (71.6 h between the
 * first and the tenth, last attempt), in the manner of Stripe's schedule.
 */
export const WEBHOOK_RETRY_DELAYS = ['1m', '5m', '30m', '2h', '5h', '10h', '14h', '20h', '20h'] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS.length + 1;

/** Workflow ids are business keys, built only here (STYLE §3). */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery:${deliveryId}`;
