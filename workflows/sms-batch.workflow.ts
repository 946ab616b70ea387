import { log, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { createSmsActivities } from '../activities/sms.activities';
import { isActivityTimeout } from './shared/activity-failures';
import { smsStepLocalActivity, smsSubmitLocalActivity } from './shared/activity-options';
import type { SmsBatchInput, SmsBatchResult } from './shared/messaging.contracts';

type SmsActivities = ReturnType<typeof createSmsActivities>;
const { sendMessage } = proxyLocalActivities<SmsActivities>(smsSubmitLocalActivity);
const { failMessage } = proxyLocalActivities<SmsActivities>(smsStepLocalActivity);

/** One message of the batch; its failure never stops the others. */
async function sendOne(messageId: string): Promise<string> {
  try {
    let sent = await sendMessage({ messageId });
    // A submit that went out unanswered: wait for its receipt before it may go again.
    while (sent.uncertainWaitSeconds) {
      await sleep(sent.uncertainWaitSeconds * 1000);
      sent = await sendMessage({ messageId, afterUncertainWait: true });
    }
    return sent.status;
  } catch (err) {
    if (isActivityTimeout(err)) {
      await failMessage({ messageId, errorCode: 'carrier_unavailable', errorMessage: 'No carrier accepted the message within 72 hours' });
      return 'failed';
    }
    log.error('Message send failed', { messageId, error: String(err) });
    return 'error';
  }
}

/**
 * Sends a batch of immediate messages: each goes through the same step as a single message (consent,
 * `sending`, submit through the router, `sent`), concurrently, each retried on its own while carriers
 * are down. Delivery receipts are then folded in by the carrier listener as they arrive.
 */
export async function smsBatchWorkflow(input: SmsBatchInput): Promise<SmsBatchResult> {
  const results = await Promise.all(input.messageIds.map(sendOne));
  return { statuses: Object.fromEntries(input.messageIds.map((id, i) => [id, results[i]!])) };
}
