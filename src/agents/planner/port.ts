/**
 * The planner port: one step of an agent run's reasoning. Given the agent's instructions, the
 * conversation so far (already redacted), the passages retrieved for the latest customer message and the
 * results of tool calls made so far in this run, a planner decides the next step: call tools, reply, or
 * hand off. Providers: `local` (deterministic, no network), `openai` (chat-completions compatible) and
 * `anthropic` (Messages API). The run, not the planner, enforces guardrails (confidence floor,
 * retrieval_required, approvals, redaction); a planner only proposes.
 */

import type { ConversationChannel } from '../../domain/channels';
import { contentTerms } from '../../platform/text';

export type Channel = ConversationChannel;

/** JSON Schema of a tool's arguments (type: object, properties, required, …). */
export type JsonSchema = Record<string, unknown>;

export interface PlannerTool {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface PlannerPassage {
  /** 1-based reference used in citations: the reply cites passage `ref` as [ref]. */
  ref: number;
  sourceId: string;
  title: string;
  /** The passage text (or its snippet), already redacted. */
  text: string;
  url: string | null;
  /** Calibrated relevance in [0, 1] (same scale as the knowledge query API's `score`). */
  score: number;
  /**
   * The question's cosine with each of the passage's stored sentence vectors, in the order of
   * `sentenceEmbeddingTexts` (the passage's sentences of three characters or more, the first 16); absent when
   * the passage has none (one sentence, lexical retrieval, or not embedded yet).
   */
  sentenceCosines?: number[];
}

/**
 * A handoff's suggested reply (for the person taking over) quotes a passage only from this calibrated
 * score up: below it the passage is more likely unrelated than not a partial answer, and the suggestion is
 * left empty rather than show an unrelated article.
 */
export const SUGGESTED_REPLY_MIN_SCORE = 0.25;

export interface PlannerTurn {
  role: 'customer' | 'agent' | 'human';
  content: string;
}

export interface PlannerToolResult {
  /** call_… id of the call this result belongs to. */
  callId: string;
  tool: string;
  arguments: Record<string, unknown>;
  /**
   * ok: 2xx body in `result`; error: non-2xx or {error} or invalid arguments (`error` says why);
   * timed_out: no answer within timeout_ms; rejected: an approver said no; expired: no approval or async
   * result in time.
   */
  status: 'ok' | 'error' | 'timed_out' | 'rejected' | 'expired';
  result?: unknown;
  error?: { code: string; message: string };
}

export interface PlannerInput {
  instructions: string;
  channel: Channel;
  locale: string | null;
  /** Facts the agent may use without a tool call (conversation.context). */
  context: Record<string, unknown>;
  /** Earlier turns of the conversation, oldest first (excluding `message`). */
  transcript: PlannerTurn[];
  /** The customer message this run answers. */
  message: string;
  passages: PlannerPassage[];
  tools: PlannerTool[];
  /** Results of tool calls made earlier in this run, in call order. */
  toolResults: PlannerToolResult[];
  /** Whether the agent may only answer knowledge questions from passages. */
  retrievalRequired: boolean;
  /**
   * The agent's `guardrails.confidence_floor` (default 0.5): a passage answers only when its calibrated
   * score reaches it, the one number that decides whether the agent answers from knowledge.
   */
  confidenceFloor?: number;
}

export interface PlannerUsage {
  input_tokens: number;
  output_tokens: number;
}

export type HandoffReason =
  | 'low_confidence'
  | 'no_supporting_source'
  | 'restricted_topic'
  | 'approval_rejected'
  | 'approval_expired'
  | 'tool_failed'
  | 'customer_requested'
  | 'out_of_scope';

export type PlannerDecision =
  | {
      type: 'tool_calls';
      calls: Array<{ tool: string; arguments: Record<string, unknown> }>;
      usage: PlannerUsage;
    }
  | {
      type: 'reply';
      content: string;
      /** `ref`s of the passages the reply is grounded in (empty: not grounded in knowledge). */
      citations: number[];
      /** Whether the reply rests on a successful tool result (grounded without passages). */
      groundedInTools: boolean;
      /**
       * The reply asks the customer for something (a missing tool argument, a clarification) instead of
       * answering: it needs no supporting source even when the agent requires retrieval.
       */
      clarifying?: boolean;
      /** The planner's own estimate in [0, 1]; the run combines it with retrieval scores. */
      confidence: number;
      usage: PlannerUsage;
    }
  | {
      type: 'handoff';
      reason: HandoffReason;
      summary: string;
      suggestedReply: string;
      usage: PlannerUsage;
    };

export interface PlanOptions {
  signal?: AbortSignal;
  /**
   * Called with the reply's text as the provider produces it (a streaming provider asks with `stream: true`),
   * the planner's own markup (citation markers, their spacing) already removed: when the step ends in a
   * reply, the pieces joined equal the decision's `content`. A step that ends in tool calls or a handoff may
   * have produced text first (the caller withdraws it). Planners that answer at once never call it.
   */
  onReplyText?: (text: string) => void;
}

export interface Planner {
  readonly provider: 'local' | 'openai' | 'anthropic';
  plan(input: PlannerInput, options?: PlanOptions): Promise<PlannerDecision>;
}

/** Words that open a follow-up ("and on Sundays?", "what about express?", "und sonntags?", "et le dimanche ?"). */
const FOLLOW_UP_OPENERS = /^\s*(?:and|or|also|what about|how about|und|oder|et|ou|y|o|e)\b/i;

/**
 * The question a message asks, read as a customer means it: a follow-up (opened by "and", "what about"…,
 * or of one content word) is read together with the previous customer message; anything else stands on
 * its own. Retrieval searches it and the planner quotes by it, so both read the same question.
 */
export function followUpQuestion(message: string, previous: string | undefined): string {
  if (!previous?.trim()) return message;
  const followUp = FOLLOW_UP_OPENERS.test(message) || contentTerms(message).length <= 1;
  return followUp ? `${previous.trim()} ${message.trim()}` : message;
}
