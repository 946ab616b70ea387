/**
 * The port every SMS carrier implements (sandbox, SMPP, later HTTP carriers). The router in
 * router.ts picks carriers by destination prefix and priority and fails over between them; the
 * SMS services never talk to a carrier directly.
 *
 * Carriers live in the worker process: activities submit through them, and their receipts and inbound
 * messages are handed to the `CarrierListener` the SMS area registers at worker start.
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
  /** The message's mode: a test-mode message goes to a sandbox carrier only, whatever the routing says. */
  livemode: boolean;
  /**
   * Epoch ms after which a part still queued inside the carrier client (waiting for a window slot or a
   * token) must not go out: it fails `not sent` instead of leaving later, behind a failover.
   */
  deadline?: number;
  /** Continue a partial submit: only on this carrier, parts after those accepted, the same reference. */
  resume?: { carrier: string; acceptedIds: string[]; concatRef: number | null };
}

/**
 * What left us when a submit failed: `none` (safe to send elsewhere), `partial` (the first
 * `acceptedIds.length` parts were accepted, then a definite refusal) or `unknown` (a part went out and
 * no answer came: it may have been accepted).
 */
export type SubmitSentState = 'none' | 'partial' | 'unknown';

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

/**
 * Where the router records each carrier it hands a message to, before the carrier gets it, and how that
 * try ended when it did not succeed (a success is recorded by the caller with its result).
 */
export interface SubmitJournal {
  begin(input: { carrier: string }): Promise<void>;
  fail(input: { carrier: string; sent: SubmitSentState; acceptedIds: string[]; concatRef: number | null; code: string }): Promise<void>;
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
    /** What left us before the failure (default: nothing). */
    readonly progress: { sent: SubmitSentState; acceptedIds: string[]; concatRef: number | null } = { sent: 'none', acceptedIds: [], concatRef: null },
  ) {
    super(message);
  }
}

export type ReceiptStatus = 'delivered' | 'undelivered' | 'failed' | 'expired' | 'rejected' | 'unknown';

export interface DeliveryReceipt {
  carrier: string;
  carrierMessageId: string;
  /** The handset the receipt is about (E.164), when the carrier says: matches submits never answered. */
  handset?: string;
  status: ReceiptStatus;
  /** Carrier's error detail (SMPP `err:` field), mapped to our error_code by the SMS area. */
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
  /** From a sandbox carrier: it reaches test-mode numbers only (a real carrier's, live ones only). */
  sandbox?: boolean;
}

export interface CarrierListener {
  onReceipt(receipt: DeliveryReceipt): Promise<void>;
  onInbound(message: InboundSms): Promise<void>;
}

export interface Carrier {
  readonly name: string;
  /** A sandbox carrier (nothing leaves the process): the only kind test-mode messages may reach. */
  readonly sandbox?: boolean;
  /** False while disconnected or its circuit is open: the router skips it. */
  isAvailable(): boolean;
  submit(request: SubmitSmsRequest): Promise<SubmitSmsResult>;
  start(listener: CarrierListener): Promise<void>;
  stop(): Promise<void>;
}

/** What the SMS area needs from the carrier layer: the router (submit) and its lifecycle. */
export interface SmsCarriers {
  submit(request: SubmitSmsRequest, journal?: SubmitJournal): Promise<SubmitSmsResult>;
  start?(listener: CarrierListener): Promise<void>;
  stop?(): Promise<void>;
}
