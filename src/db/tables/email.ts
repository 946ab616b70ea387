import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

/** An inbound email address of an account; its live agent (if any) answers what arrives there. */
export interface EmailAddressTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  /** As registered; unique case-insensitively. */
  address: string;
  /** The From display name of replies sent from this address. */
  display_name: string | null;
  agent_id: string | null;
  created_at: Timestamp;
}

export type EmailDirection = 'inbound' | 'outbound';
/** inbound: received. outbound: sending → delivered (the SMTP server accepted it) | bounced | failed. */
export type EmailStatus = 'received' | 'sending' | 'delivered' | 'bounced' | 'failed';

/** One email of a conversation (sent or received), with the headers that thread it. */
export interface EmailMessageTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  conversation_id: string;
  /** The transcript message it carries (null for none). */
  conversation_message_id: string | null;
  direction: EmailDirection;
  /** RFC 5322 Message-ID without angle brackets. */
  message_id: string;
  in_reply_to: string | null;
  references: ColumnType<string[], string | undefined, string>;
  subject: string;
  /** The subject without reply/forward prefixes, lower-cased: the thread it belongs to. */
  thread_subject: string;
  from_address: string;
  to_address: string;
  /** The customer's side of the exchange (from on inbound, to on outbound). */
  customer_address: string;
  status: EmailStatus;
  error: Json<{ code: string; message: string }> | null;
  delivered_at: NullableTimestamp;
  opened_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  complained_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
