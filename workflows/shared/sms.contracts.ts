import { defineSignal } from '@temporalio/workflow';
import { defineWorkflowContract } from './workflow-contract';

export interface SmsDeliveryInput {
  messageId: string;
  /** RFC 3339 time to send at; null sends now. */
  sendAt: string | null;
  /** Promotional messages are held for the recipient's quiet hours. */
  promotional: boolean;
  /** How long to wait for the handset receipt once sent; without one the message stays `sent`. */
  receiptTimeoutSeconds: number;
}

export interface SmsDeliveryResult {
  status: string;
}

export interface SmsBatchInput {
  /**
   * Messages to send now (no send_at, not promotional), in the order the API accepted them. A run
   * continued as new carries the whole batch here too, so the result lists every message in this order.
   */
  messageIds: string[];
  /** Set by continue-as-new: the messages still to send. Absent on the first run (every message, due now). */
  pending?: SmsBatchPendingMessage[];
  /** Set by continue-as-new: the final status of each message already settled (messageId → status). */
  settled?: Record<string, string>;
  /** Set by continue-as-new: workflow time (ms) of the batch's first start; the 72 h give-up counts from it. */
  firstStartedAtMs?: number;
  /** History length after which a run continues as new between rounds (default 10,000 events). */
  continueAsNewAfterEvents?: number;
}

/** A message of a batch not sent yet, as carried from one round (and one run) to the next. */
export interface SmsBatchPendingMessage {
  messageId: string;
  /** Retryable failures in a row (an uncertain submit starts the count again): sets the backoff. */
  failedAttempts: number;
  /** Workflow time (ms) from which the message is tried again. */
  dueAtMs: number;
  /** A submit may have gone out unanswered: the next call says the wait is over, so the service may resubmit. */
  afterUncertainWait: boolean;
}

export interface SmsBatchResult {
  /** Every message of the batch → its status when the batch let go of it (`sent`, `failed`, `error`, …). */
  statuses: Record<string, string>;
}

/** One message of a batch round (the `sendMessageRound` activity). */
export interface SmsRoundMessage {
  messageId: string;
  /** A submit may have gone out unanswered and the wait is over: the service may submit it again. */
  afterUncertainWait?: boolean;
}

/**
 * What a round did with one message: settled it (`status`), found it failed retryably (`retry`), was told
 * to wait for an unanswered submit's receipt (`uncertainWaitSeconds`), found it gone (`missing`), or held
 * it back for the account's throughput (`deferMs`: due again then, not counted as a failure).
 */
export type SmsRoundOutcome =
  | { status: string }
  | { retry: true }
  | { uncertainWaitSeconds: number }
  | { missing: true }
  | { deferMs: number };

export interface SmsRoundResult {
  outcomes: Record<string, SmsRoundOutcome>;
}

/** One scheduled or promotional SMS: send_at timer, quiet hours, submit, receipt wait. */
export const smsDeliveryWorkflowContract = defineWorkflowContract<SmsDeliveryInput, SmsDeliveryResult>('smsDeliveryWorkflow');
/** A batch of immediate SMS sharing one workflow start. */
export const smsBatchWorkflowContract = defineWorkflowContract<SmsBatchInput, SmsBatchResult>('smsBatchWorkflow');

/** A delivery receipt for one of the message's parts was stored: fold receipts into its status. */
export const deliveryReceiptSignal = defineSignal('deliveryReceipt');
/** The message was canceled (already recorded in Postgres): stop waiting for send_at or quiet hours. */
export const cancelMessageSignal = defineSignal('cancelMessage');

export const smsDeliveryWorkflowId = (messageId: string) => `sms-delivery:${messageId}`;
/** A batch of immediate messages, named after its first message. */
export const smsBatchWorkflowId = (firstMessageId: string) => `sms-batch:${firstMessageId}`;
