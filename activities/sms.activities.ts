import type { MessageDeliveryService } from '../src/sms/message-delivery.service';
import type { MessageRoundSender } from '../src/sms/message-round.service';
import type { SmsRoundMessage } from '../workflows/shared/sms.contracts';
import { asActivity } from './activity-errors';
import { withHeartbeat } from './heartbeat';

/** The SMS delivery workflows' steps, over MessageDeliveryService. */
export function createSmsActivities(deps: { messageDelivery: MessageDeliveryService; messageRounds: MessageRoundSender }) {
  const delivery = deps.messageDelivery;
  const rounds = deps.messageRounds;
  return {
    /** Quiet-hours check of a promotional message at the workflow's time `at`. */
    planMessageSend: (input: { messageId: string; at: number }) => asActivity(() => delivery.planMessageSend(input)),
    /** Consent check, `sending`, submit through the carrier router (journaled), `sent`. */
    sendMessage: (input: { messageId: string; afterUncertainWait?: boolean }) => asActivity(() => delivery.sendMessage(input)),
    /** A batch round: every due message of a batch claimed, submitted, recorded and folded together. */
    sendMessageRound: (input: { messages: SmsRoundMessage[] }) => withHeartbeat(() => asActivity(() => rounds.sendRound(input))),
    /** Folds stored delivery receipts into the message's status. */
    applyDeliveryReceipts: (input: { messageId: string }) => asActivity(() => delivery.applyReceipts(input)),
    /** Ends a message `failed` (no carrier took it in time). */
    failMessage: (input: { messageId: string; errorCode: string; errorMessage: string }) => asActivity(() => delivery.failMessage(input)),
  };
}
