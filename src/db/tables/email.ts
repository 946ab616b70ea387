import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

/** An inbound email address of an account; its live agent (if any) answers what arrives there. */
export interface EmailAddressTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  /** As registered; unique case-insensitively among live addresses, and within the account in test mode. */
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
  /** Outbound: its return path (VERP, `bounces+<token>@…`, lower-case), where its bounces are accepted; null inbound. */
  return_path: ColumnType<string | null, string | null | undefined, string | null>;
  error: Json<{ code: string; message: string }> | null;
  delivered_at: NullableTimestamp;
  opened_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  complained_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A domain an account says it owns: proven by a DNS TXT record holding its own token (per account and
 * mode), with the DKIM key live mail from it is signed with once the key's record is published.
 */
export interface EmailDomainTable {
  id: string;
  account_id: string;
  livemode: boolean;
  /** Lower-case, without a trailing dot. */
  domain: string;
  /** The value the ownership TXT record must hold (after `converse-verification=`). */
  verification_token: string;
  /** When the ownership record was first found; null until then. */
  verified_at: NullableTimestamp;
  dkim_selector: string;
  /** The public key as base64 DER (SubjectPublicKeyInfo), the `p=` of the DKIM record. */
  dkim_public_key: string;
  /** PKCS#8 PEM, sealed with a key derived from SERVER_SECRET. */
  dkim_private_key_sealed: string;
  /** When the DKIM record was found with this key; mail is signed only after. */
  dkim_verified_at: NullableTimestamp;
  last_checked_at: NullableTimestamp;
  created_at: Timestamp;
}
