import type { ColumnType } from 'kysely';
import type { NullableTimestamp, Timestamp } from './accounts';

export interface PublishableKeyTable {
  /** pkey_… */
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  /** The key itself (pk_test_… / pk_live_…): public by design (it sits in a web page), so kept in the clear. */
  key: string;
  name: string;
  /** Exact `scheme://host[:port]` origins a browser may call from. */
  allowed_origins: ColumnType<string[], string[], string[]>;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface AgentIdentitySecretTable {
  /** idk_…: the `kid` a visitor JWT names. */
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  /** The HS256 secret, sealed with a key derived from the server secret (shown once at creation). */
  secret_sealed: string;
  last4: string;
  created_at: Timestamp;
  /** After this time the secret verifies nothing (a rotation's overlap); null: until removed. */
  expires_at: NullableTimestamp;
}
