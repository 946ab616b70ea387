import type { Json, NullableTimestamp, Timestamp } from './accounts';

/** Provider call statuses (Twilio's CallStatus values), in the order a call moves through them. */
export type CallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'canceled';

/** One voice call, keyed by the provider's call sid; its turns are messages of `conversation_id`. */
export interface CallTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  phone_number_id: string;
  direction: 'inbound';
  from_number: string;
  to_number: string;
  status: CallStatus;
  /** The agent the call flow's connect_agent handed the call to. */
  agent_id: string | null;
  /** The conversation the call's turns are written to (set on the first speech turn). */
  conversation_id: string | null;
  /** The call flow's language (speech and recognition), kept for the call's later turns. */
  language: string;
  /** Where a handoff transfers the call (the connect_agent action's transfer_to). */
  transfer_to: string | null;
  transferred_at: NullableTimestamp;
  duration_seconds: number | null;
  recording_sid: string | null;
  recording_url: string | null;
  recording_duration_seconds: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  answered_at: NullableTimestamp;
  ended_at: NullableTimestamp;
}

