import { z } from '../domain/api-schema';
import { CONVERSATION_CHANNELS } from '../domain/channels';
import { HandoffSchema } from '../runs/run.schemas';

const ChannelSchema = z.enum(CONVERSATION_CHANNELS);
const ArgumentsSchema = z.record(z.string(), z.unknown());

/** A source the reply must cite: its id, or a title or url that contains the given text (case-insensitive). */
const CitedSourceSchema = z
  .strictObject({
    source_id: z.string().min(1).max(255).optional(),
    title: z.string().min(1).max(500).optional().describe('a cited source whose title contains this (case-insensitive)'),
    url: z.string().min(1).max(2048).optional().describe('a cited source whose url contains this'),
  })
  .refine((s) => s.source_id || s.title || s.url, 'name a source_id, a title or a url')
  .openapi({ minProperties: 1 } as Record<string, unknown>);

/** What must happen after a customer turn; every key given is one expectation, all must hold. */
export const TurnExpectationsSchema = z
  .strictObject({
    reply: z
      .strictObject({
        cites: CitedSourceSchema.optional(),
        contains_one_of: z.array(z.string().min(1).max(500)).min(1).max(50).optional().describe('the reply contains at least one (case-insensitive)'),
        max_sms_segments: z.number().int().min(1).max(20).optional().describe('on sms: the reply fits in this many segments'),
      })
      .optional()
      .describe('the run replies (no handoff)'),
    handoff: z
      .strictObject({ reasons: z.array(HandoffSchema.shape.reason).min(1).optional().describe('one of these reasons (any when absent)') })
      .optional()
      .describe('the run hands the conversation to a human'),
    requires_action: z
      .strictObject({
        tool: z.string().min(1).max(64),
        arguments: ArgumentsSchema.optional().describe('a subset of the call\'s arguments'),
        type: z.enum(['approval', 'async_result']).optional(),
      })
      .optional()
      .describe('the run stopped for an approval or an asynchronous tool result of this call'),
    tool_called: z
      .strictObject({ tool: z.string().min(1).max(64), arguments: ArgumentsSchema.optional().describe('a subset of the call\'s arguments') })
      .optional(),
    no_tool: z.literal(true).optional().describe('the run called no tool'),
    redacted: z.array(z.string().min(1).max(500)).min(1).max(20).optional().describe('none of these strings is stored anywhere (transcript, runs, tool calls, events)'),
  })
  .refine((e) => Object.values(e).some((v) => v !== undefined), 'give at least one expectation')
  .openapi({ minProperties: 1 } as Record<string, unknown>);
export type TurnExpectations = z.infer<typeof TurnExpectationsSchema>;

export const TestTurnSchema = z.strictObject({
  customer: z.string().min(1).max(4000).describe('what the customer says'),
  channel: ChannelSchema.optional().describe("the turn's channel (default: the case's)"),
  approve: z.boolean().default(true).describe('how the evaluation answers an approval this turn asks for'),
  expect: TurnExpectationsSchema.optional(),
});

/**
 * A tool result declared in the case: the evaluation answers the run's call from it instead of calling
 * the tool's endpoint (`call_endpoint: true` calls the real tool). `result`: a 200 with this body;
 * `error`: the tool failed; `pending: true` with `result`: a 202, then the result submitted.
 */
export const DeclaredToolResultSchema = z
  .strictObject({
    tool: z.string().min(1).max(64),
    arguments: ArgumentsSchema.optional().describe('answer only calls whose arguments include these'),
    result: z.unknown().optional(),
    error: z.strictObject({ code: z.string().min(1).max(100), message: z.string().max(1000).default('') }).optional(),
    pending: z.literal(true).optional(),
    call_endpoint: z.literal(true).optional(),
  })
  .describe('exactly one of: result, error, pending (with the result), call_endpoint (checked by the service: 422)');
export type DeclaredToolResult = z.infer<typeof DeclaredToolResultSchema>;

/** What a declaration's schema cannot say: exactly one kind, and a pending one carries its result. */
export function declaredResultProblem(d: DeclaredToolResult): string | undefined {
  const kinds = [d.result !== undefined && !d.pending, d.error !== undefined, d.pending === true, d.call_endpoint === true].filter(Boolean).length;
  if (d.pending && d.result === undefined) return 'pending: true needs the result submitted after the 202';
  if (kinds !== 1) return 'declare exactly one of: result, error, pending (with result), call_endpoint';
  return undefined;
}

/** A test case as authored (YAML `tests:` entries, the API's body). */
export const TestCaseDefinitionSchema = z.strictObject({
  name: z.string().min(1).max(200),
  channel: ChannelSchema.default('chat'),
  locale: z.string().min(2).max(35).optional(),
  customer: z.record(z.string(), z.string().max(500)).optional().describe('the customer (name, phone, email, id)'),
  context: z.record(z.string(), z.unknown()).optional().describe('the conversation context'),
  turns: z.array(TestTurnSchema).min(1).max(20),
  tool_results: z.array(DeclaredToolResultSchema).max(50).default([]),
});
export type TestCaseDefinition = z.infer<typeof TestCaseDefinitionSchema>;
export type TestCaseDefinitionInput = z.input<typeof TestCaseDefinitionSchema>;

export const TestCaseSchema = z
  .object({
    id: z.string().describe('tcase_ prefix'),
    object: z.literal('test_case'),
    livemode: z.boolean(),
    agent_id: z.string(),
    name: z.string(),
    channel: ChannelSchema,
    locale: z.string().nullable(),
    customer: z.record(z.string(), z.string()),
    context: z.record(z.string(), z.unknown()),
    turns: z.array(z.object({ customer: z.string(), channel: ChannelSchema.optional(), approve: z.boolean(), expect: z.record(z.string(), z.unknown()).optional() })),
    tool_results: z.array(z.record(z.string(), z.unknown())),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('TestCase');
export type TestCaseObject = z.infer<typeof TestCaseSchema>;

export const CaseFailureSchema = z.object({
  turn: z.number().int().min(1).describe('the customer turn, counted from 1 (the console and the CLI say "turn 1" for the same one)'),
  expectation: z.string(),
  reason: z.string(),
});
export type CaseFailure = z.infer<typeof CaseFailureSchema>;

export const EvaluationCaseResultSchema = z.object({
  case_id: z.string(),
  name: z.string(),
  passed: z.boolean(),
  failures: z.array(CaseFailureSchema).describe('each expectation that failed, at which turn, and why'),
  run_ids: z.array(z.string()),
  conversation_id: z.string().describe('the hidden test conversation'),
  confidence: z.number().nullable().describe("the last run's confidence"),
  latency_ms: z.number().int().describe('from the first customer turn to the last run settling'),
  comparison: z.enum(['regression', 'fix', 'unchanged', 'new']).nullable().describe('against the live version\'s last evaluation'),
});

export const EvaluationComparisonSchema = z.object({
  baseline_evaluation_id: z.string().nullable().describe('the last completed evaluation of the live version'),
  baseline_version: z.number().int().nullable(),
  regressions: z.array(z.string()).describe('case ids that passed there and fail here'),
  fixes: z.array(z.string()).describe('case ids that failed there and pass here'),
});
export type EvaluationComparison = z.infer<typeof EvaluationComparisonSchema>;

export const EvaluationSchema = z
  .object({
    id: z.string().describe('eval_ prefix'),
    object: z.literal('evaluation'),
    livemode: z.boolean(),
    agent_id: z.string(),
    version: z.union([z.number().int(), z.literal('draft')]).describe('the version evaluated, or draft'),
    agent_version: z.number().int().nullable().describe('the published version the runs used; null when `version` is "draft" (the draft as it was when the evaluation started)'),
    status: z.enum(['running', 'completed']),
    passed: z.boolean().nullable().describe('every case passed (null while running)'),
    case_count: z.number().int(),
    passed_count: z.number().int(),
    failed_count: z.number().int(),
    cases: z.array(EvaluationCaseResultSchema).describe('results so far, in case order'),
    comparison: EvaluationComparisonSchema.nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .openapi('Evaluation');
export type EvaluationObject = z.infer<typeof EvaluationSchema>;

export const CreateEvaluationBodySchema = z.strictObject({
  agent_id: z.string().min(1).max(255),
  version: z.union([z.number().int().min(1).max(2_147_483_647), z.literal('draft')]).default('draft'),
  case_ids: z.array(z.string().min(1).max(255)).min(1).max(1000).optional().describe('default: every case of the agent'),
});

export const TestCaseParamsSchema = z.strictObject({ id: z.string().min(1).max(255), case_id: z.string().min(1).max(255) });
