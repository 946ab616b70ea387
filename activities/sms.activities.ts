import type { MessageDeliveryService } from '../src/sms/message-delivery.service';
import { asActivity } from './activity-errors';

/** The SMS delivery workflows' steps, over MessageDeliveryService. */
export function createSmsActivities(deps: { messageDelivery: MessageDeliveryService }) {
  const delivery = deps.messageDelivery;
  return {
    /** Quiet-hours check of a promotional message at the workflow's time `at`. */
    planMessageSend: (input: { messageId: string; at: number }) => asActivity(() => delivery.planMessageSend(input)),
    /** Consent check, `sending`, submit through the carrier router (journaled), `sent`. */
    sendMessage: (input: { messageId: string; afterUncertainWait?: boolean }) => asActivity(() => delivery.sendMessage(input)),
    /** Folds stored delivery receipts into the message's status. */
    applyDeliveryReceipts: (input: { messageId: string }) => asActivity(() => delivery.applyReceipts(input)),
    /** Ends a message `failed` (no carrier took it in time). */
    failMessage: (input: { messageId: string; errorCode: string; errorMessage: string }) => asActivity(() => delivery.failMessage(input)),
  };
}
