import { defineSignal } from '@temporalio/workflow';

/** A delivery receipt for one of the message's parts was stored: fold receipts into its status. */
export const deliveryReceiptSignal = defineSignal('deliveryReceipt');
/** The message was canceled (already recorded in Postgres): stop waiting for send_at or quiet hours. */
export const cancelMessageSignal = defineSignal('cancelMessage');
/** The verification reached a final status (approved or locked): its expiry timer is no longer needed. */
export const verificationFinishedSignal = defineSignal('verificationFinished');
