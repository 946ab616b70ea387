import type { ColumnType, Generated } from 'kysely';
import type { Role } from '../../domain/roles';
import type { NullableTimestamp, Timestamp } from './accounts';

/** A person who signs in to the console with an email and password (scrypt hash); one account each. */
export interface ConsoleUserTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  created_at: Generated<Date>;
  /** Set when the user may no longer sign in; their sessions end with it. */
  disabled_at: NullableTimestamp;
  /** What the teammate may do in the console (domain/roles.ts); users made before roles are owners. */
  role: ColumnType<Role, Role | undefined, Role>;
  /** The name their replies are signed with (the email when empty). */
  display_name: ColumnType<string, string | undefined, string>;
}

/** An invite to the console: a signed, single-use, expiring link (only its SHA-256 is kept) for an email and a role. */
export interface ConsoleInviteTable {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  token_hash: string;
  /** The teammate who invited (null: the CLI or a key sign-in). */
  invited_by: string | null;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** A console sign-in: the cookie holds a random token, this row its SHA-256 (a leaked table signs nobody in). */
export interface ConsoleSessionTable {
  token_hash: string;
  account_id: string;
  mode: 'test' | 'live';
  user_id: string | null;
  /** The API key a key sign-in used: revoking it ends the session. Null for a console user's session. */
  key_id: string | null;
  csrf_token: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}

/** A one-time sign-in link (`npm start` prints one for the development account): the hash of its token and the key it signs in with. */
export interface ConsoleSignInLinkTable {
  token_hash: string;
  key_id: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}
