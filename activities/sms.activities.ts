import type { MessagesService } from '../src/messaging/messages.service';
import { asActivity } from './activity-errors';

/** The SMS delivery workflow's steps, over MessagesService. */
export function createSmsActivities(deps: { messages: MessagesService }) {
  const { messages } = deps;
  return {
    /** Quiet-hours check of a promotional message at the workflow's time `at`. */
    planMessageSend: (input: { messageId: string; at: number }) => asActivity(() => messages.planMessageSend(input)),
    /** Consent check, `sending`, submit through the carrier router, `sent`. */
    sendMessage: (input: { messageId: string }) => asActivity(() => messages.sendMessage(input)),
    /** Folds stored delivery receipts into the message's status. */
    applyDeliveryReceipts: (input: { messageId: string }) => asActivity(() => messages.applyReceipts(input)),
    /** Ends a message `failed` (no carrier took it in time). */
    failMessage: (input: { messageId: string; errorCode: string; errorMessage: string }) => asActivity(() => messages.failMessage(input)),
  };
}
