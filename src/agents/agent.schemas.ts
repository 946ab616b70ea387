import { z } from '../domain/api-schema';
import { APPROVER_ROLES } from '../domain/roles';
import { CONVERSATION_CHANNELS } from '../domain/channels';

/**
 * Default `guardrails.confidence_floor`. Scores are calibrated probabilities (docs/decisions/knowledge-calibrated-score.md): below 0.5 the agent is less than 50 % sure the passage it quotes answers the question.
 */
export const DEFAULT_CONFIDENCE_FLOOR = 0.5;

export const ChannelSchema = z.enum(CONVERSATION_CHANNELS);
export type Channel = z.infer<typeof ChannelSchema>;

const FilterValueSchema = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.strictObject({ in: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1) }),
  z.strictObject({ eq: z.union([z.string(), z.number(), z.boolean()]) }),
]);

export const ToolDefinitionSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'letters, digits, _ or -, starting with a letter, at most 64'),
  description: z.string().min(1).max(1024),
  parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
  endpoint: z.string().url().max(2048),
  timeout_ms: z.number().int().min(100).max(60_000).default(10_000),
  /** Retried once on network errors (SPEC: handlers should be idempotent using run_id). */
  idempotent: z.boolean().default(false),
  /**
   * Who may approve a call of this tool (when it is in guardrails.requires_approval): console teammates and
   * API keys with one of these roles. Absent: agent and above (docs/decisions/console-approvals.md).
   */
  approver_roles: z
    .array(z.enum(APPROVER_ROLES, { message: 'a role that may approve: agent, admin or owner' }))
    .min(1)
    .max(3)
    .refine((r) => new Set(r).size === r.length, 'each role once')
    .optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

/** Handoff notices by locale: at most 20, each 1–500 characters. */
const HandoffNoticesSchema = z
  .record(z.string().regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'a locale such as en or fr-CA'), z.string().trim().min(1).max(500))
  .refine((r) => Object.keys(r).length <= 20, 'at most 20 locales');

/**
 * An agent's configuration as authored in the console or applied from a YAML file (`npm run cli --
 * agents apply`). Publishing freezes it into an immutable version; runs record the version they used.
 */
export const AgentConfigSchema = z.strictObject({
  name: z.string().min(1).max(120),
  channels: z.array(ChannelSchema).min(1).default(['chat']),
  locales: z.array(z.string().min(2).max(35)).default(['en']),
  instructions: z.string().max(20_000).default(''),
  knowledge_bases: z
    .array(z.strictObject({ id: z.string().startsWith('kb_'), filter: z.record(z.string(), FilterValueSchema).optional() }))
    .default([]),
  /** Filter retrieval on this source metadata key with the conversation's customer locale (e.g. `locale`). */
  locale_filter_key: z.string().min(1).max(40).nullable().default(null),
  /**
   * When the locale filter leaves no passage for the customer's locale, search the agent's other locales
   * (the answer then says it comes from a help centre in another language); false: hand off instead.
   */
  locale_fallback: z.boolean().default(true),
  /** Never answer a knowledge question without a supporting source (hand off instead). */
  retrieval_required: z.boolean().default(true),
  tools: z.array(ToolDefinitionSchema).max(32).default([]),
  guardrails: z
    .strictObject({
      requires_approval: z.array(z.string()).default([]),
      restricted_topics: z.array(z.string().min(2).max(200)).max(100).default([]),
      /** What a restricted topic does: hand off to a human, or refuse politely and stay with the agent. */
      restricted_topic_action: z.enum(['handoff', 'refuse']).default('handoff'),
      /** A probability: below it, the agent is less than this sure that the passage it quotes answers. */
      confidence_floor: z.number().min(0).max(1).default(DEFAULT_CONFIDENCE_FLOOR),
    })
    .default({ requires_approval: [], restricted_topics: [], restricted_topic_action: 'handoff', confidence_floor: DEFAULT_CONFIDENCE_FLOOR }),
  handoff: z
    .strictObject({
      default_queue: z.string().min(1).max(120).default('support'),
      on_low_confidence: z.boolean().default(true),
      /** What the customer is told when a run hands off, by locale (`en`, `fr`, `fr-CA`…); none: the service's default. */
      notice: HandoffNoticesSchema.optional(),
      /** The same outside the queue's business hours; `{{back_at}}` becomes the next opening ("Monday at 09:00"). */
      notice_after_hours: HandoffNoticesSchema.optional(),
    })
    .default({ default_queue: 'support', on_low_confidence: true }),
  /**
   * On SMS and email, a one-line question after each agent answer ("Did that answer your question? Reply
   * YES…"); a plain yes back counts as a confirmed resolution and starts no run (src/conversations/resolution-question.ts).
   */
  resolution_question: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** The question by locale (`en`, `fr`, `fr-CA`…), one line; none: the service's default (en, de, fr, es). */
      text: z
        .record(z.string().regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'a locale such as en or fr-CA'), z.string().trim().min(1).max(160).regex(/^[^\r\n]*$/, 'one line'))
        .refine((r) => Object.keys(r).length <= 20, 'at most 20 locales')
        .optional(),
    })
    .default({ enabled: false }),
  /** Publishing refuses a draft whose latest evaluation has a regression or is older than the draft (issue 20). */
  require_passing_evaluation: z.boolean().default(false),
  /** How long an approval or an async tool result is awaited before the run gives up on it. */
  timeouts: z
    .strictObject({
      approval_seconds: z.number().int().min(10).max(7 * 86_400).default(3_600),
      tool_result_seconds: z.number().int().min(10).max(7 * 86_400).default(3_600),
    })
    .default({ approval_seconds: 3_600, tool_result_seconds: 3_600 }),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type AgentConfigInput = z.input<typeof AgentConfigSchema>;

/** A tool as the agent object shows it: its whole definition, with whether a run must wait for approval. */
export const AgentToolSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()).describe('JSON Schema of the arguments'),
    endpoint: z.string().describe('the URL the service POSTs signed calls to (https in live mode; never with credentials)'),
    timeout_ms: z.number().int(),
    idempotent: z.boolean().describe('retried once on network errors'),
    requires_approval: z.boolean().describe('a call waits for approval (the tool is in guardrails.requires_approval)'),
    approver_roles: z.array(z.enum(APPROVER_ROLES)).optional().describe('the roles that may approve a call (absent: agent and above)'),
  })
  .openapi('AgentTool');

/** The agent object of the API (read-only there): SPEC "Agent", plus the rest of the version's config. */
export const AgentSchema = z
  .object({
    id: z.string().describe('agt_ prefix'),
    object: z.literal('agent'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    name: z.string(),
    status: z.enum(['live', 'draft']),
    channels: z.array(ChannelSchema),
    locales: z.array(z.string()),
    instructions: z.string(),
    knowledge_sources: z.array(z.string()).describe('knowledge base ids'),
    knowledge_bases: z
      .array(z.object({ id: z.string(), filter: z.record(z.string(), FilterValueSchema).nullable().describe('metadata filter on its sources; null: none') }))
      .describe('the knowledge bases searched, each with its filter'),
    locale_filter_key: z.string().nullable().describe("source metadata key filtered with the customer's locale; null: none"),
    locale_fallback: z.boolean().describe("when the locale filter leaves no passage for the customer's locale, search the agent's other locales"),
    tools: z.array(z.string()).describe('tool names'),
    tool_definitions: z.array(AgentToolSchema).describe('the tools, whole (in the order of tools)'),
    guardrails: z.object({
      requires_approval: z.array(z.string()),
      restricted_topics: z.array(z.string()),
      restricted_topic_action: z.enum(['handoff', 'refuse']),
      confidence_floor: z.number(),
    }),
    handoff: z.object({
      default_queue: z.string(),
      on_low_confidence: z.boolean(),
      notice: z.record(z.string(), z.string()).optional().describe("the customer's notice on a handoff, by locale; absent: the service's default"),
      notice_after_hours: z.record(z.string(), z.string()).optional().describe('the notice outside the queue\'s business hours ({{back_at}}: the next opening)'),
    }),
    retrieval_required: z.boolean(),
    resolution_question: z
      .object({ enabled: z.boolean(), text: z.record(z.string(), z.string()).optional() })
      .describe('SMS and email: a one-line question after each answer; a plain yes back (YES, ja, oui, sí…) is a confirmed resolution and starts no run. text: by locale; absent: the default in en, de, fr, es'),
    timeouts: z.object({ approval_seconds: z.number().int(), tool_result_seconds: z.number().int() }),
    version: z.number().int().describe('the live version; 0 while the agent was never published'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Agent');
export type AgentObject = z.infer<typeof AgentSchema>;

/**
 * The API shows what conversations use: the live version, or the draft of an agent never published. The
 * whole config is shown: nothing secret is part of it (tools are signed with the account's signing
 * secret, which the agent does not hold, and a tool URL with credentials in it is refused when configured).
 */
export function toAgentObject(row: { id: string; livemode: boolean; live_version: number | null; created_at: Date; updated_at: Date }, config: AgentConfig): AgentObject {
  const approval = new Set(config.guardrails.requires_approval);
  return {
    id: row.id,
    object: 'agent',
    livemode: row.livemode,
    name: config.name,
    status: row.live_version === null ? 'draft' : 'live',
    channels: config.channels,
    locales: config.locales,
    instructions: config.instructions,
    knowledge_sources: config.knowledge_bases.map((k) => k.id),
    knowledge_bases: config.knowledge_bases.map((k) => ({ id: k.id, filter: k.filter ?? null })),
    locale_filter_key: config.locale_filter_key,
    locale_fallback: config.locale_fallback !== false,
    tools: config.tools.map((t) => t.name),
    tool_definitions: config.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      endpoint: t.endpoint,
      timeout_ms: t.timeout_ms,
      idempotent: t.idempotent,
      requires_approval: approval.has(t.name),
      ...(t.approver_roles ? { approver_roles: t.approver_roles } : {}),
    })),
    guardrails: {
      requires_approval: config.guardrails.requires_approval,
      restricted_topics: config.guardrails.restricted_topics,
      restricted_topic_action: config.guardrails.restricted_topic_action,
      confidence_floor: config.guardrails.confidence_floor,
    },
    handoff: config.handoff,
    retrieval_required: config.retrieval_required,
    resolution_question: config.resolution_question ?? { enabled: false },
    timeouts: config.timeouts,
    version: row.live_version ?? 0,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
