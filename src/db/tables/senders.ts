import type { Timestamp } from './accounts';

/**
 * Alphanumeric sender IDs and short codes registered to an account (phone numbers live in
 * phone_numbers). A sender belongs to one account: only it may send from the sender, and inbound
 * messages and STOPs to it reach only that account. Unique case-insensitively.
 */
export interface SenderTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  sender: string;
  kind: 'alphanumeric' | 'short_code';
  created_at: Timestamp;
}
