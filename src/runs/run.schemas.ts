import { z } from '../domain/api-schema';
import { RUN_STATUSES } from './run-lifecycle';
import type { RunRow, ToolCallRow } from './run.repo';

export const RunStatusSchema = z.enum(RUN_STATUSES);

/** A retrieval item of a run: the passage's knowledge base (`source`), its source id, title, snippet, url and score. */
export const RunRetrievalItemSchema = z.object({
  source: z.string().describe('knowledge base id'),
  source_id: z.string(),
  title: z.string(),
  snippet: z.string(),
  url: z.string().nullable(),
  score: z.number(),
  cited: z.boolean().describe('whether the reply is grounded in this passage'),
});

export const HandoffSchema = z.object({
  reason: z.enum(['low_confidence', 'no_supporting_source', 'restricted_topic', 'approval_rejected', 'approval_expired', 'tool_failed', 'customer_requested', 'out_of_scope']),
  queue: z.string(),
  summary: z.string(),
  suggested_reply: z.string(),
});
export type Handoff = z.infer<typeof HandoffSchema>;

export const GuardrailNoteSchema = z.object({ guardrail: z.string(), action: z.string(), detail: z.string() });
export type GuardrailNote = z.infer<typeof GuardrailNoteSchema>;

/** Who did what a person does: a console teammate (with their display name) or an API key. */
export const ActorSchema = z
  .object({
    type: z.enum(['teammate', 'api_key', 'evaluation']),
    id: z.string().describe('cu_ (teammate) or key_ (API key) prefix'),
    name: z.string().nullable().describe("the teammate's display name; \"Support team\" for a console signed in with a key; null for an API key"),
  })
  .openapi('Actor');

export const RunToolCallSchema = z.object({
  id: z.string().describe('call_ prefix'),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  result_status: z.string().describe('ok, error, timed_out, pending, awaiting_approval, rejected, expired, invalid'),
  latency_ms: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  approval: z
    .object({
      decision: z.enum(['approve', 'reject']),
      note: z.string().nullable(),
      approver: ActorSchema,
      decided_at: z.string(),
    })
    .nullable()
    .describe('who approved or rejected a call gated by requires_approval, and when; null while undecided or ungated'),
});

export const RunSchema = z
  .object({
    id: z.string().describe('run_ prefix'),
    object: z.literal('run'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    conversation_id: z.string(),
    message_id: z.string().describe('the customer message this run answers'),
    agent_id: z.string(),
    agent_version: z.number().int(),
    channel: z.string(),
    status: RunStatusSchema,
    confidence: z.number().nullable(),
    retrieval: z.array(RunRetrievalItemSchema),
    retrieval_mode: z
      .enum(['hybrid', 'lexical', 'lexical_fallback'])
      .nullable()
      .describe('how the knowledge was searched: hybrid (words and meaning), lexical (embeddings off or not computed yet), lexical_fallback (the question could not be embedded in time; scores are the lexical calibration\'s); null without knowledge bases'),
    tool_calls: z.array(RunToolCallSchema),
    reply: z.object({ role: z.literal('agent'), content: z.string() }).nullable(),
    handoff: HandoffSchema.nullable(),
    usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    guardrail_notes: z.array(GuardrailNoteSchema),
    required_action: z
      .object({
        type: z.enum(['submit_tool_result', 'approve_tool_call']),
        tool_calls: z.array(z.object({ id: z.string(), tool: z.string(), arguments: z.record(z.string(), z.unknown()) })),
        expires_at: z.string(),
      })
      .nullable(),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .openapi('Run');
export type RunObject = z.infer<typeof RunSchema>;

/** What the run stores per retrieved passage (the API shows all but `content`, which grounds the planner). */
export interface StoredRetrievalItem extends z.infer<typeof RunRetrievalItemSchema> {
  content: string;
  /** The passage's heading (its section of the source), kept for its citation page. */
  section?: string | null;
  /** The question's cosine with each of the passage's sentence vectors, for the planner (not in the API). */
  sentence_cosines?: number[];
}

const RESULT_STATUS: Record<string, string> = { pending_result: 'pending', calling: 'in_progress', ready: 'queued', approved: 'approved' };

export function toRunObject(run: RunRow, calls: ToolCallRow[], metadata: Record<string, string>): RunObject {
  return {
    id: run.id,
    object: 'run',
    livemode: run.livemode,
    conversation_id: run.conversation_id,
    message_id: run.message_id,
    agent_id: run.agent_id,
    agent_version: run.agent_version,
    channel: run.channel,
    status: run.status,
    confidence: run.confidence,
    retrieval: (run.retrieval as StoredRetrievalItem[]).map(({ content: _content, section: _section, sentence_cosines: _cosines, ...item }) => item),
    retrieval_mode: (run.retrieval_mode ?? null) as RunObject['retrieval_mode'],
    tool_calls: calls.map((c) => ({
      id: c.id,
      tool: c.tool,
      arguments: c.arguments,
      result_status: RESULT_STATUS[c.status] ?? c.status,
      latency_ms: c.latency_ms,
      error: c.error,
      approval: c.decided_by && c.decided_at && (c.status !== 'awaiting_approval')
        ? { decision: c.status === 'rejected' ? 'reject' : 'approve', note: c.decision_note, approver: c.decided_by, decided_at: new Date(c.decided_at).toISOString() }
        : null,
    })),
    reply: run.reply,
    handoff: run.handoff as Handoff | null,
    usage: run.usage,
    error: run.error,
    guardrail_notes: run.guardrail_notes as GuardrailNote[],
    required_action: run.required_action as RunObject['required_action'],
    metadata,
    created_at: run.created_at.toISOString(),
    completed_at: run.completed_at ? run.completed_at.toISOString() : null,
  };
}
