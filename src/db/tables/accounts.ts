import type { ColumnType, Generated } from 'kysely';
import type { Role } from '../../domain/roles';

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** jsonb column: written as JSON text, read back parsed. */
export type Json<T> = ColumnType<T, string, string>;

export interface AccountTable {
  id: string;
  name: string;
  /** Live mode's whsec_ secret signing the account's live status callbacks, tool calls and api-source queries. */
  signing_secret: string;
  /** The secret `signing_secret` replaced, still signing beside it until `previous_signing_secret_expires_at`. */
  previous_signing_secret: ColumnType<string | null, string | null | undefined, string | null>;
  previous_signing_secret_expires_at: NullableTimestamp;
  /** Test mode's secret (and its rotation), apart from live's: a test key never sees or rotates live's. */
  test_signing_secret: string;
  test_previous_signing_secret: ColumnType<string | null, string | null | undefined, string | null>;
  test_previous_signing_secret_expires_at: NullableTimestamp;
  /** IANA time zone analytics periods (day, week, month) are cut in. */
  time_zone: ColumnType<string, string | undefined, string>;
  /** Hours without a customer message after an agent answer before it counts as an assumed resolution. */
  resolution_window_hours: ColumnType<number, number | undefined, number>;
  /** A teammate's SMS reply ends with "— <display name>" (off by default). */
  sign_sms_replies: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  mode: 'test' | 'live';
  /** sha256 hex of the full secret; the secret itself is shown once at creation. */
  secret_hash: string;
  last4: string;
  name: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** What the key may do (domain/roles.ts, http/api-roles.ts); keys made before roles are owners. */
  role: ColumnType<Role, Role | undefined, Role>;
  /** The console teammate who made the key (its role is at most theirs); null: the CLI or a key sign-in. */
  created_by_user_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface IdempotencyKeyTable {
  account_id: string;
  key: string;
  request_method: string;
  request_path: string;
  request_hash: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: Json<unknown> | null;
  created_at: Timestamp;
  seq: Generated<number>;
}
