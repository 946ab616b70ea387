import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

/** A customer's rating of a conversation (thumbs up: the answer helped); the latest one counts. */
export interface ConversationFeedbackTable {
  id: string;
  account_id: string;
  livemode: boolean;
  conversation_id: string;
  /** The agent message rated, when the customer rated one. */
  message_id: string | null;
  rating: 'up' | 'down';
  created_at: Timestamp;
}

/**
 * One conversation's facts as its last rollup computed them from the transcript (src/analytics/conversation-facts.ts):
 * the moment it counts as resolved, and when the customer came back. Used to find the hours to roll again
 * when a resolution becomes due or durable with time alone.
 */
export interface AnalyticsConversationTable {
  conversation_id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  agent_version: number;
  channel: string;
  started_at: Timestamp;
  resolution: 'confirmed' | 'assumed' | null;
  resolved_at: NullableTimestamp;
  /** resolved_at + 7 days: when it becomes durable unless reopened. */
  durable_at: NullableTimestamp;
  reopened_at: NullableTimestamp;
  computed_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The hourly aggregates of one agent version on one channel (src/analytics/hourly-metrics.ts gives the shapes). */
export interface AnalyticsHourlyTable {
  account_id: string;
  livemode: boolean;
  agent_id: string;
  agent_version: number;
  channel: string;
  hour: Timestamp;
  counts: Json<Record<string, number>>;
  handoff_reasons: Json<Record<string, number>>;
  tool_calls: Json<Record<string, Record<string, number>>>;
  histograms: Json<Record<string, number[]>>;
  /** Decimal string as read (numeric). */
  sms_cost: ColumnType<string, string | number | undefined, string | number>;
}

export interface AnalyticsRollupStateTable {
  id: string;
  watermark: Timestamp;
}

/** The hourly rows of one local day (the account's zone at `analytics_daily_state`) summed; same shapes. */
export interface AnalyticsDailyTable {
  account_id: string;
  livemode: boolean;
  agent_id: string;
  agent_version: number;
  channel: string;
  /** The local date, read as 'YYYY-MM-DD'. */
  day: ColumnType<string, string, string>;
  counts: Json<Record<string, number>>;
  handoff_reasons: Json<Record<string, number>>;
  tool_calls: Json<Record<string, Record<string, number>>>;
  histograms: Json<Record<string, number[]>>;
  sms_cost: ColumnType<string, string | number | undefined, string | number>;
}

/** The zone an account's daily rows are cut in (readers use them only when it is the account's zone). */
export interface AnalyticsDailyStateTable {
  account_id: string;
  time_zone: string;
}
