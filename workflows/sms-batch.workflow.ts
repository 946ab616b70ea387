import { proxyLocalActivities } from '@temporalio/workflow';
import type { createSmsActivities } from '../activities/sms.activities';
import { smsSubmitLocalActivity } from './shared/activity-options';

const { sendMessage } = proxyLocalActivities<ReturnType<typeof createSmsActivities>>(smsSubmitLocalActivity);

export interface SmsBatchInput {
  /** Messages to send now (no send_at, not promotional), in the order the API accepted them. */
  messageIds: string[];
}

export interface SmsBatchResult {
  statuses: Record<string, string>;
}

/**
 * Sends a batch of immediate messages: each goes through the same step as a single message (consent,
 * `sending`, submit through the router, `sent`), concurrently, each retried on its own while carriers
 * are down. Delivery receipts are then folded in by the carrier listener as they arrive.
 */
export async function smsBatchWorkflow(input: SmsBatchInput): Promise<SmsBatchResult> {
  const results = await Promise.all(input.messageIds.map((messageId) => sendMessage({ messageId })));
  return { statuses: Object.fromEntries(input.messageIds.map((id, i) => [id, results[i]!.status])) };
}
