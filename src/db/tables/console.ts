import type { Generated } from 'kysely';
import type { Timestamp } from './accounts';

/** A person who signs in to the console with an email and password (scrypt hash); one account each. */
export interface ConsoleUserTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  created_at: Generated<Date>;
}

/** A console sign-in: the cookie holds a random token, this row its SHA-256 (a leaked table signs nobody in). */
export interface ConsoleSessionTable {
  token_hash: string;
  account_id: string;
  mode: 'test' | 'live';
  user_id: string | null;
  csrf_token: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}
