import { defineSignal } from '@temporalio/workflow';
import { defineWorkflowContract } from './workflow-contract';

export interface WebhookDeliveryInput {
  deliveryId: string;
  /**
   * The attempt this run starts with, after waiting the schedule's delay before it: the dispatcher made
   * attempt 1 and starts the workflow with 2 when it failed. Absent (runs started before the outbox): 1.
   */
  firstAttempt?: number;
  /** The retry schedule, resolved by the dispatcher from config (absent in runs started before: the default one). */
  schedule?: WebhookRetrySchedule;
}

/** Delays of a delivery's retry schedule, in ms (the workflow sees no config, STYLE §6). */
export interface WebhookRetrySchedule {
  /** Wait before attempt n + 2 (attempt 1 is immediate). */
  delaysMs: number[];
  /** While an attempt cannot run at all, the wait before trying it again. */
  infraRetryDelayMs: number;
  /** How long past the last scheduled attempt tries go on while attempts cannot run. */
  outageGraceMs: number;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'failed' | 'cancelled';
  attempts: number;
}

/** Retries one delivery of an event to one endpoint (or callback URL) on the backoff schedule. */
export const webhookDeliveryWorkflowContract = defineWorkflowContract<WebhookDeliveryInput, WebhookDeliveryResult>('webhookDeliveryWorkflow');

/** Stops a delivery's retry loop (its endpoint was disabled or deleted). */
export const cancelDeliverySignal = defineSignal('cancelDelivery');

/**
 * Delays between webhook delivery attempts: exponential backoff over about 3 days (71.6 h between the
 * first and the tenth, last attempt), in the manner of Stripe's schedule.
 */
export const WEBHOOK_RETRY_DELAYS = ['1m', '5m', '30m', '2h', '5h', '10h', '14h', '20h', '20h'] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS.length + 1;
/**
 * While an attempt cannot run at all (database or worker trouble, not the endpoint), the workflow tries
 * it again after this long, until the schedule's own end: an outage never ends a delivery early.
 */
export const WEBHOOK_INFRA_RETRY_DELAY = '1m';

const HOUR_MS = 3_600_000;
const toMs = (d: string) => Number(d.slice(0, -1)) * (d.endsWith('h') ? HOUR_MS : d.endsWith('m') ? 60_000 : 1000);

/**
 * The retry schedule with every delay multiplied by `scale` (1: the real ~3 days; the chaos run uses a
 * fraction so hours of schedule pass in seconds on a real server). At least 1 ms per timer.
 */
export function webhookRetrySchedule(scale = 1): WebhookRetrySchedule {
  const scaled = (ms: number) => Math.max(1, Math.round(ms * scale));
  return {
    delaysMs: WEBHOOK_RETRY_DELAYS.map((d) => scaled(toMs(d))),
    infraRetryDelayMs: scaled(toMs(WEBHOOK_INFRA_RETRY_DELAY)),
    outageGraceMs: scaled(HOUR_MS),
  };
}

/** Workflow ids are business keys, built only here (STYLE §3). */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery:${deliveryId}`;
