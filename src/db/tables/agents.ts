import type { ColumnType, Generated } from 'kysely';
import type { ConversationChannel } from '../../domain/channels';
import type { Approver, MessageAuthor } from '../../domain/roles';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

/** A stored agent configuration (draft or a published version); its shape is AgentConfig in src/agents. */
export type StoredAgentConfig = Record<string, unknown>;

export interface AgentTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  name: string;
  /** The editable draft; publishing copies it into agent_versions. */
  draft: Json<StoredAgentConfig>;
  /** The published version conversations use; null while the agent is a draft only. */
  live_version: number | null;
  /** Whether a website visitor must carry a JWT signed with one of the agent's identity secrets (src/widget). */
  visitor_identity: ColumnType<'optional' | 'required', 'optional' | 'required' | undefined, 'optional' | 'required'>;
  /** The website widget's appearance (theme, position, greeting, proactive message, persistence); `{}` until set (src/widget). */
  widget_appearance: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AgentVersionTable {
  agent_id: string;
  version: number;
  config: Json<StoredAgentConfig>;
  published_at: Timestamp;
}

export type ConversationStatus = 'active' | 'handed_off' | 'closed';
export type { ConversationChannel };

export interface ConversationTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  /** null: a conversation of a number with no agent attached; the team answers it (status handed_off from the start). */
  agent_id: string | null;
  channel: ConversationChannel;
  status: ConversationStatus;
  customer: Json<Record<string, unknown>>;
  context: Json<Record<string, unknown>>;
  tags: Json<string[]>;
  metadata: Json<Record<string, string>>;
  handoff: Json<Record<string, unknown>> | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  closed_at: NullableTimestamp;
  /** A console test chat (runs the agent's draft); kept out of the inbox and the API's lists. */
  test: ColumnType<boolean, boolean | undefined, boolean>;
  /** The agent version every run of the conversation uses (an evaluation's test conversation); null: the live one. */
  pinned_agent_version: ColumnType<number | null, number | null | undefined, number | null>;
  /** The website visitor (vis_…) who opened it through a publishable key; null for every other conversation. */
  visitor_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** A customer wrote while a person holds the conversation (or it was just handed off); cleared when a teammate opens it. */
  unread: ColumnType<boolean, boolean | undefined, boolean>;
  /** The inbox's summary, kept by a trigger on conversation_messages (the last message; the oldest unanswered customer message). */
  last_message_at: ColumnType<Date | null, never, never>;
  last_message_preview: ColumnType<string | null, never, never>;
  last_message_role: ColumnType<string | null, never, never>;
  waiting_since: ColumnType<Date | null, never, never>;
  /** When it last became unread (a teammate whose last read is older sees it unread). */
  unread_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The console user working it ("Mine"); null: unassigned. */
  assignee_user_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last team email about it (at most one per 5 minutes). */
  team_alerted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/**
 * A handoff queue of the account (the name an agent's `handoff.default_queue` gives) and its business
 * hours: `weekly_hours` null means always open.
 */
export interface QueueTable {
  id: string;
  account_id: string;
  livemode: boolean;
  name: string;
  /** IANA time zone the hours and holidays are in. */
  time_zone: string;
  weekly_hours: Json<Partial<Record<Weekday, string[]>>> | null;
  /** Local dates (YYYY-MM-DD) the queue is closed all day. */
  holidays: Json<string[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A teammate (console user) of a queue: the team emails about its handoffs go to its teammates. */
export interface QueueMemberTable {
  queue_id: string;
  user_id: string;
}

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';

/** `system`: a message the service sends itself (the handoff notice, the widget's proactive message); never an agent's answer. */
export type ConversationRole = 'customer' | 'agent' | 'human' | 'system';

export interface ConversationMessageTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  conversation_id: string;
  seq: Generated<number>;
  role: ConversationRole;
  /** The channel the message came in on (customer) or went out on (agent, human). */
  channel: ColumnType<ConversationChannel, ConversationChannel | undefined, ConversationChannel>;
  content: string;
  attachments: Json<string[]>;
  run_id: string | null;
  /** Who wrote a human message: a console teammate (with their display name) or an API key; null otherwise. */
  author: ColumnType<MessageAuthor | null, string | null | undefined, string | null>;
  /** An agent answer's cited sources, in the order cited; `[]` otherwise. */
  citations: ColumnType<MessageCitation[], string | undefined, string>;
  /** What a `system` message is: `proactive` (the widget's proactive message the visitor answered); null otherwise. */
  kind: ColumnType<MessageKind | null, MessageKind | null | undefined, MessageKind | null>;
  created_at: Timestamp;
}

/** A source an agent answer cites: its title and link (null: a source with no page to link to). */
export interface MessageCitation {
  title: string;
  url: string | null;
}

export type MessageKind = 'proactive';

export type RunStatus = 'queued' | 'in_progress' | 'requires_action' | 'completed' | 'failed' | 'expired';

export interface RunTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  conversation_id: string;
  /** The customer message this run answers. */
  message_id: string;
  agent_id: string;
  agent_version: number;
  channel: ConversationChannel;
  status: RunStatus;
  confidence: number | null;
  retrieval: Json<unknown[]>;
  /** hybrid | lexical | lexical_fallback (the question could not be embedded); null: no retrieval recorded. */
  retrieval_mode: ColumnType<string | null, string | null | undefined, string | null>;
  /** The planner's last decision (internal; materialised into reply/handoff when the run finishes). */
  decision: Json<Record<string, unknown>> | null;
  reply: Json<{ role: 'agent'; content: string }> | null;
  handoff: Json<Record<string, unknown>> | null;
  usage: Json<{ input_tokens: number; output_tokens: number }>;
  error: Json<{ code: string; message: string }> | null;
  guardrail_notes: Json<unknown[]>;
  required_action: Json<Record<string, unknown>> | null;
  reply_message_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
}

/**
 * A tool call of a run. ready (no gate) or awaiting_approval → approved | rejected | expired; ready or approved →
 * calling → ok | error | timed_out | pending_result; pending_result → ok (result submitted) | expired.
 * invalid: arguments failed the tool's JSON Schema (nothing was sent).
 */
export type ToolCallStatus =
  | 'ready'
  | 'awaiting_approval'
  | 'approved'
  | 'rejected'
  | 'calling'
  | 'pending_result'
  | 'ok'
  | 'error'
  | 'timed_out'
  | 'expired'
  | 'invalid';

export interface RunToolCallTable {
  id: string;
  run_id: string;
  seq: number;
  tool: string;
  arguments: Json<Record<string, unknown>>;
  status: ToolCallStatus;
  result: Json<unknown> | null;
  error: Json<{ code: string; message: string }> | null;
  latency_ms: number | null;
  attempts: ColumnType<number, number | undefined, number>;
  expires_at: NullableTimestamp;
  decision_note: string | null;
  /** Who approved or rejected the call (a teammate or an API key), and when. */
  decided_by: ColumnType<Approver | null, string | null | undefined, string | null>;
  decided_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RunEventTable {
  run_id: string;
  seq: number;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

/**
 * An event of a conversation's stream (GET /v1/conversations/{id}/events), numbered per conversation in
 * commit order: `conversation.message` (written by a trigger with every message; `message_id` names it),
 * a status change (trigger), `reply.delta` / `reply.retracted` (written by runs as the planner streams).
 */
export interface ConversationEventTable {
  conversation_id: string;
  seq: number;
  type: string;
  message_id: string | null;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: ColumnType<Date, Date | undefined, Date>;
}
