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
  /** Messages to send now (no send_at, not promotional), in the order the API accepted them. */
  messageIds: string[];
}

export interface SmsBatchResult {
  statuses: Record<string, string>;
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
