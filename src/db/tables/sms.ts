import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

type WithDefault<T> = ColumnType<T, T | undefined, T>;

/**
 * SPEC statuses of outbound messages plus `canceled` (a scheduled message canceled before it was sent);
 * inbound messages are `received`.
 */
export type MessageStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'canceled' | 'received';
export type MessageDirection = 'outbound' | 'inbound';
export type MessageType = 'transactional' | 'promotional';
/** Who created an outbound message: the API, a keyword auto-reply (exempt from consent), a verification. */
/** `conversation`: a reply in a conversation (an agent's or a human's), sent by the channel adapter. */
export type MessageOrigin = 'api' | 'auto_reply' | 'verification' | 'conversation';

export interface MessageTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  direction: MessageDirection;
  channel: WithDefault<string>;
  type: MessageType;
  origin: MessageOrigin;
  to: string;
  from: string;
  body: string;
  /** The real text when `body` is masked (a verification code), encrypted; null once submitted. */
  body_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  status: MessageStatus;
  segments: number;
  encoding: string;
  /** ISO country of the recipient (outbound) or sender (inbound), when the number has one. */
  country: string | null;
  /** Decimal string, null until charged (at carrier acceptance). */
  price: string | null;
  price_currency: string | null;
  error_code: string | null;
  error_message: string | null;
  reference: string | null;
  status_callback: string | null;
  send_at: NullableTimestamp;
  /** Set while a promotional message is held for the recipient's quiet hours. */
  held_until: NullableTimestamp;
  carrier: string | null;
  carrier_message_ids: Json<string[]> | null;
  /** The message batch (POST /v1/message_batches) the message was sent in, if any. */
  message_batch_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  sent_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
}

/** (carrier, carrier message id) → our message: how a receipt finds its message. */
export interface MessagePartTable {
  carrier: string;
  carrier_message_id: string;
  message_id: string;
  part: number;
}

/**
 * Every delivery receipt as received, kept even when its message is not known yet (the submit result
 * not recorded): recording the submit folds the waiting receipts in.
 */
export interface SmsReceiptTable {
  carrier: string;
  carrier_message_id: string;
  status: string;
  carrier_error_code: string | null;
  received_at: Timestamp;
  /** The handset the receipt is about (E.164), when the carrier said. */
  handset: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * How a submit attempt ended: `submitting` while (or if the worker died while) the carrier has it;
 * `accepted` every part; `not_sent` nothing left us; `partial` some parts accepted, then a definite
 * refusal; `uncertain` a part went out and no answer came; `abandoned` uncertain, and no receipt came
 * within the wait, so the message was submitted again.
 */
export type SubmitAttemptState = 'submitting' | 'accepted' | 'not_sent' | 'partial' | 'uncertain' | 'abandoned';

export interface SmsSubmitAttemptTable {
  message_id: string;
  attempt: number;
  carrier: string;
  /** The message's `to`: a receipt whose id we never got is matched by carrier and handset. */
  recipient: string;
  state: SubmitAttemptState;
  parts: number;
  /** Carrier ids of the parts accepted so far, in part order. */
  accepted_ids: ColumnType<string[], string | undefined, string>;
  /** The UDH concatenation reference the parts went out with (a resumed submit keeps it). */
  concat_ref: number | null;
  error_code: string | null;
  started_at: ColumnType<Date, Date | undefined, Date>;
  finished_at: NullableTimestamp;
}

/** Consent per (account, sender, recipient); sender `*` holds a STOPALL. */
export interface SmsConsentTable {
  account_id: string;
  /** Consent is kept per mode (a sandbox STOP never silences live messages). */
  livemode: boolean;
  sender: string;
  recipient: string;
  opted_out: boolean;
  keyword: string;
  updated_at: Timestamp;
}

export interface PhoneNumberTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  number: string;
  country: string | null;
  /** Answer to an inbound HELP on this number (else the configured default). */
  help_text: string | null;
  /** A live agent attached in the console answers inbound messages (conversations issue). */
  agent_id: string | null;
  /** What an inbound call hears and who answers it (VoiceCallFlow in src/channels/voice); null: no voice. */
  voice_call_flow: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export type VerificationStatus = 'pending' | 'approved' | 'expired' | 'max_attempts_reached';

export interface VerificationTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  to: string;
  channel: string;
  status: VerificationStatus;
  /** HMAC-SHA256 of the code, keyed per verification; the code itself is never stored. */
  code_hash: string;
  code_length: number;
  attempts: WithDefault<number>;
  max_attempts: number;
  message_id: string | null;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A message waiting for its workflow to be started (the SMS outbox; see the dispatcher). */
export interface SmsOutboxTable {
  message_id: string;
  /** Scheduled or promotional: a delivery workflow of its own; otherwise a batch of immediate messages. */
  own_workflow: boolean;
  created_at: ColumnType<Date, Date | undefined, never>;
  /** The workflow a dispatcher put the message in (batch id, or the message id), once claimed. */
  batch_id: string | null;
  /** Until when the claiming dispatcher holds it; past it, another starts the same workflow again. */
  lease_until: Date | null;
}

/** A batch of messages accepted by one POST /v1/message_batches. */
export interface MessageBatchTable {
  id: string;
  account_id: string;
  livemode: boolean;
  from: string;
  type: MessageType;
  /** The body template (`{{name}}` placeholders filled from each recipient's variables). */
  body: string;
  send_at: NullableTimestamp;
  status_callback: string | null;
  /** Messages queued (recipients accepted). */
  recipients: number;
  /** Recipients left out with skip_invalid: index, param, code and message of each. */
  rejected: ColumnType<BatchRejection[], string | undefined, string>;
  created_at: Timestamp;
  canceled_at: NullableTimestamp;
  completed_at: NullableTimestamp;
}

export interface BatchRejection {
  index: number;
  param: string;
  code: string;
  message: string;
}
