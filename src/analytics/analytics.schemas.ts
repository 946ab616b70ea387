import { z } from '../domain/api-schema';
import { FORMULAS } from './conversation-facts';
import { quantileOf, ratesOf, TOOL_OUTCOMES, type Aggregate } from './hourly-metrics';

const Rate = (d: string) => z.number().nullable().describe(`${d} Null when the denominator is 0.`);
const Ms = z.number().int().nullable();

export const MetricsSchema = z.object({
  conversations: z.number().int().describe(FORMULAS.conversations),
  customer_messages: z.number().int().describe('Customer messages written in the period.'),
  runs: z.number().int().describe('Runs started in the period.'),
  involved: z.number().int(),
  involvement_rate: Rate(FORMULAS.involvement_rate),
  resolved: z.number().int(),
  resolved_confirmed: z.number().int().describe(FORMULAS.resolved_confirmed),
  resolved_assumed: z.number().int().describe(FORMULAS.resolved_assumed),
  resolution_rate: Rate(FORMULAS.resolution_rate),
  automation_rate: Rate(FORMULAS.automation_rate),
  reopened: z.number().int(),
  reopen_rate: Rate(FORMULAS.reopen_rate),
  durable: z.number().int(),
  durable_rate: Rate(FORMULAS.durable_rate),
  handed_off: z.number().int(),
  handoff_rate: Rate(FORMULAS.handoff_rate),
  handoffs_by_reason: z.record(z.string(), z.number().int()).describe('Handed-off conversations by the reason of their first handoff.'),
  feedback: z.object({ up: z.number().int(), down: z.number().int() }).describe("Conversations whose latest rating is up / down (any time, also after a handoff)."),
  first_response_ms: z.object({ agent_median: Ms, human_median: Ms }).describe(FORMULAS.first_response),
  time_to_resolution_ms: z.object({ agent_median: Ms, human_median: Ms }).describe(FORMULAS.time_to_resolution),
  run_latency_ms: z.object({ median: Ms, p95: Ms }).describe(`${FORMULAS.run_latency} From hourly histograms: exact to the bucket, interpolated inside it.`),
  tool_calls: z.array(z.object({ tool: z.string(), ...Object.fromEntries(TOOL_OUTCOMES.map((o) => [o, z.number().int()])) as Record<(typeof TOOL_OUTCOMES)[number], z.ZodNumber> })).describe(FORMULAS.tool_calls),
  confidence: z.array(z.object({ from: z.number(), to: z.number(), runs: z.number().int() })).describe(FORMULAS.confidence),
  sms: z.object({ messages: z.number().int(), segments: z.number().int(), cost: z.string().describe('Decimal, in the carrier\'s currency') }).describe(FORMULAS.sms),
}).openapi('AnalyticsMetrics');

export type MetricsObject = z.infer<typeof MetricsSchema>;

export const AgentAnalyticsSchema = z.object({
  object: z.literal('agent_analytics'),
  agent_id: z.string(),
  livemode: z.boolean(),
  from: z.string(),
  to: z.string(),
  granularity: z.enum(['hour', 'day', 'week', 'month']),
  time_zone: z.string().describe('The account\'s zone the periods are cut in (GET/POST /v1/analytics/settings).'),
  resolution_window_hours: z.number().int(),
  channel: z.string().nullable(),
  version: z.number().int().nullable(),
  totals: MetricsSchema,
  series: z.array(z.object({ period: z.string().describe('Local label of the period (YYYY-MM-DD, YYYY-MM or YYYY-MM-DDTHH:00)'), period_start: z.string(), partial: z.boolean().describe('Not final yet: the period is cut by `from` or `to`, is not over, or ended less than the resolution window ago (its assumed resolutions are not all due, so its resolution rate still rises)'), metrics: MetricsSchema })),
}).openapi('AgentAnalytics');

export type AgentAnalyticsObject = z.infer<typeof AgentAnalyticsSchema>;

export const AnalyticsSettingsSchema = z.object({
  object: z.literal('analytics_settings'),
  time_zone: z.string(),
  resolution_window_hours: z.number().int(),
}).openapi('AnalyticsSettings');

export const FeedbackSchema = z.object({
  id: z.string(),
  object: z.literal('conversation_feedback'),
  conversation_id: z.string(),
  message_id: z.string().nullable(),
  rating: z.enum(['up', 'down']),
  created_at: z.string(),
}).openapi('ConversationFeedback');

export function toMetricsObject(a: Aggregate): MetricsObject {
  const c = a.counts;
  const h = a.histograms;
  return {
    conversations: c.conversations,
    customer_messages: c.customer_messages,
    runs: c.runs,
    involved: c.involved,
    resolved: c.resolved,
    resolved_confirmed: c.resolved_confirmed,
    resolved_assumed: c.resolved_assumed,
    reopened: c.reopened,
    durable: c.durable,
    handed_off: c.handed_off,
    ...ratesOf(a),
    handoffs_by_reason: a.handoffReasons,
    feedback: { up: c.feedback_up, down: c.feedback_down },
    first_response_ms: { agent_median: quantileOf(h.agent_first_response, 0.5), human_median: quantileOf(h.human_first_response, 0.5) },
    time_to_resolution_ms: { agent_median: quantileOf(h.agent_resolution, 0.5), human_median: quantileOf(h.human_resolution, 0.5) },
    run_latency_ms: { median: quantileOf(h.run_latency, 0.5), p95: quantileOf(h.run_latency, 0.95) },
    tool_calls: Object.entries(a.toolCalls).sort(([x], [y]) => x.localeCompare(y)).map(([tool, o]) => ({ tool, ...o })),
    confidence: h.confidence.map((runs, i) => ({ from: i / 10, to: (i + 1) / 10, runs })),
    sms: { messages: c.sms_messages, segments: c.sms_segments, cost: a.smsCost.toFixed(4) },
  };
}
