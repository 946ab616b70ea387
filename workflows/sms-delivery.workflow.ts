import { condition, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { createSmsActivities } from '../activities/sms.activities';
import { isActivityTimeout } from './shared/activity-failures';
import { smsStepLocalActivity, smsSubmitLocalActivity } from './shared/activity-options';
import { cancelMessageSignal, deliveryReceiptSignal, type SmsDeliveryInput, type SmsDeliveryResult } from './shared/sms.contracts';

type SmsActivities = ReturnType<typeof createSmsActivities>;
const { planMessageSend, applyDeliveryReceipts, failMessage } = proxyLocalActivities<SmsActivities>(smsStepLocalActivity);
const { sendMessage } = proxyLocalActivities<SmsActivities>(smsSubmitLocalActivity);

/**
 * One outbound SMS: wait for send_at (a durable timer, cut short by a cancel), hold a promotional
 * message through the recipient's quiet hours, then consent check + submit + `sent` in one activity
 * (retried with backoff while every carrier is down), then wait for delivery receipts. Every status is
 * written to Postgres and emitted by the activities; the workflow carries ids only.
 */
export async function smsDeliveryWorkflow(input: SmsDeliveryInput): Promise<SmsDeliveryResult> {
  let canceled = false;
  let receiptSignals = 0;
  setHandler(cancelMessageSignal, () => {
    canceled = true;
  });
  setHandler(deliveryReceiptSignal, () => {
    receiptSignals++;
  });

  if (input.sendAt) {
    const delay = Date.parse(input.sendAt) - Date.now();
    if (delay > 0) await condition(() => canceled, delay);
    if (canceled) return { status: 'canceled' };
  }
  if (input.promotional) {
    for (;;) {
      const plan = await planMessageSend({ messageId: input.messageId, at: Date.now() });
      if (plan.holdUntil === null) break;
      await condition(() => canceled, Math.max(1, plan.holdUntil - Date.now()));
      if (canceled) return { status: 'canceled' };
    }
  }

  let sent;
  try {
    sent = await sendMessage({ messageId: input.messageId });
    // A submit that went out unanswered: wait for its receipt before it may go again.
    while (sent.uncertainWaitSeconds) {
      await sleep(sent.uncertainWaitSeconds * 1000);
      sent = await sendMessage({ messageId: input.messageId, afterUncertainWait: true });
    }
  } catch (err) {
    if (isActivityTimeout(err)) {
      await failMessage({ messageId: input.messageId, errorCode: 'carrier_unavailable', errorMessage: 'No carrier accepted the message within 72 hours' });
      return { status: 'failed' };
    }
    throw err;
  }
  if (!sent.awaitReceipt) return { status: sent.status };

  const deadline = Date.now() + input.receiptTimeoutSeconds * 1000;
  let seen = 0;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { status: 'sent' };
    if (!(await condition(() => receiptSignals > seen, remaining))) return { status: 'sent' };
    seen = receiptSignals;
    const applied = await applyDeliveryReceipts({ messageId: input.messageId });
    if (applied.final) return { status: applied.status };
  }
}
