import type { Generated } from 'kysely';
import type { Timestamp } from './accounts';

/** A teammate's last read of a conversation (`reader`: a console user id, or `key` for every key sign-in). */
export interface ConversationReadTable {
  conversation_id: string;
  reader: string;
  read_at: Generated<Date>;
}

/** An internal note on a conversation: for the team only, never sent, never in a customer's view. */
export interface ConversationNoteTable {
  id: string;
  account_id: string;
  livemode: boolean;
  conversation_id: string;
  /** The console user who wrote it; null when an API key (author_key_id) or a key sign-in did. */
  author_user_id: string | null;
  author_key_id: string | null;
  /** As shown: the teammate's name or email, or "API key …". */
  author_name: string;
  body: string;
  created_at: Generated<Date>;
}

/** A saved reply of an account (per mode): a name and a text with {{variables}}. */
export interface SavedReplyTable {
  id: string;
  account_id: string;
  livemode: boolean;
  name: string;
  content: string;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}
