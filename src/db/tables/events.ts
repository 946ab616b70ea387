import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

type WithDefault<T> = ColumnType<T, T | undefined, T>;

export interface EventTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface WebhookEndpointTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  url: string;
  description: string | null;
  /** Event types subscribed to, or ['*']. */
  events: Json<string[]>;
  enabled: WithDefault<boolean>;
  secret: string;
  /** The replaced secret, still signing beside `secret` until `previous_secret_expires_at` (rotation grace). */
  previous_secret: WithDefault<string | null>;
  previous_secret_expires_at: WithDefault<Date | null>;
  metadata: Json<Record<string, string>>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface WebhookDeliveryTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  event_id: string;
  /** Null for a delivery to a per-object callback URL (a message's status_callback). */
  endpoint_id: string | null;
  url: string;
  status: WebhookDeliveryStatus;
  attempt_count: WithDefault<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
  /** Null while the delivery waits in the outbox for the dispatcher's first attempt. */
  dispatched_at: NullableTimestamp;
  /** A dispatcher's claim on an undispatched delivery; expired claims are taken again. */
  dispatch_lease_until: NullableTimestamp;
}

export type WebhookAttemptOutcome = 'delivered' | 'retryable' | 'permanent';

export interface WebhookAttemptTable {
  delivery_id: string;
  attempt: number;
  started_at: Timestamp;
  status_code: number | null;
  latency_ms: number;
  outcome: WebhookAttemptOutcome;
  error: string | null;
}
