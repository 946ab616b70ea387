/**
 * The port every SMS carrier implements (sandbox, SMPP, later HTTP carriers). The router in
 * router.ts picks carriers by destination prefix and priority and fails over between them; the
 * messaging service never talks to a carrier directly.
 *
 * Carriers live in the worker process: activities submit through them, and their receipts and inbound
 * messages are handed to the `CarrierListener` the messaging service registers at worker start.
 */

export interface SubmitSmsRequest {
  /** Our msg_ id; carriers may use it for logging, never as their own id. */
  messageId: string;
  /** E.164 recipient. */
  to: string;
  /** Sender ID, short code or E.164 number. */
  from: string;
  body: string;
  /** Ask for handset delivery receipts (always true for outbound messages). */
  requestReceipt: boolean;
  /** The sending account: the router limits it to its carriers when config restricts them. */
  accountId?: string;
}

export interface SubmitSmsResult {
  carrier: string;
  /**
   * The carrier's ids, one per submitted part (a long body sent as concatenated parts has several);
   * receipts name one of them.
   */
  carrierMessageIds: string[];
  /** True when this carrier never sends handset receipts: `sent` is then terminal. */
  noReceipts?: boolean;
}

/** Why a submit failed: `retryable` sends the message to the next carrier (or a later retry). */
export class CarrierError extends Error {
  override readonly name = 'CarrierError';
  constructor(
    message: string,
    readonly carrier: string,
    /** Our error_code for the message if this failure is final (see docs/sms-error-codes.md). */
    readonly code: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export type ReceiptStatus = 'delivered' | 'undelivered' | 'failed' | 'expired' | 'rejected' | 'unknown';

export interface DeliveryReceipt {
  carrier: string;
  carrierMessageId: string;
  status: ReceiptStatus;
  /** Carrier's error detail (SMPP `err:` field), mapped to our error_code by the messaging service. */
  carrierErrorCode?: string;
  at: Date;
}

export interface InboundSms {
  carrier: string;
  from: string;
  to: string;
  body: string;
  receivedAt: Date;
  carrierMessageId?: string;
}

export interface CarrierListener {
  onReceipt(receipt: DeliveryReceipt): Promise<void>;
  onInbound(message: InboundSms): Promise<void>;
}

export interface Carrier {
  readonly name: string;
  /** False while disconnected or its circuit is open: the router skips it. */
  isAvailable(): boolean;
  submit(request: SubmitSmsRequest): Promise<SubmitSmsResult>;
  start(listener: CarrierListener): Promise<void>;
  stop(): Promise<void>;
}

/** What messaging needs from the carrier layer: the router (submit) and its lifecycle. */
export interface SmsCarriers {
  submit(request: SubmitSmsRequest): Promise<SubmitSmsResult>;
  start?(listener: CarrierListener): Promise<void>;
  stop?(): Promise<void>;
}
