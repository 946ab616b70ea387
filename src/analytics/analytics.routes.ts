import { z, UNPROCESSABLE } from '../domain/api-schema';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { IdParamsSchema } from '../http/schemas';
import { scopeOf } from '../domain/principal';
import { ChannelSchema } from '../agents/agent.schemas';
import { isTimeZone } from '../conversations/business-hours';
import { AgentAnalyticsSchema, AnalyticsSettingsSchema, FeedbackSchema } from './analytics.schemas';
import type { AnalyticsService } from './analytics.service';
import type { FeedbackService } from './feedback.service';
import { MAX_PERIODS } from './analytics.service';

const timestamp = z.iso.datetime({ offset: true });

const AgentAnalyticsQuerySchema = z.strictObject({
  from: timestamp.optional().describe('RFC 3339 start (inclusive; default: 30 days before `to`); hourly rows from this hour on'),
  to: timestamp.optional().describe('RFC 3339 end (exclusive; default: the end of the current hour); at most 400 days after `from` (else 422)'),
  granularity: z.enum(['hour', 'day', 'week', 'month']).optional().describe(`periods in the account's time zone (default day; weeks start on Monday); at most ${MAX_PERIODS} periods (else 422)`),
  channel: ChannelSchema.optional().describe('only conversations on this channel'),
  version: z.coerce.number().int().min(0).max(1_000_000).optional().describe("only this agent version (a conversation's version is its first run's)"),
});

const SettingsBodySchema = z.strictObject({
  time_zone: z.string().min(1).max(64).refine(isTimeZone, UNPROCESSABLE('an IANA time zone such as Europe/Paris')).optional().describe('IANA time zone analytics periods are cut in (default UTC)'),
  resolution_window_hours: z.number().int().min(1).max(168).optional().describe('hours without a customer message after an agent answer before a conversation counts as an assumed resolution (default 24)'),
});

const FeedbackBodySchema = z.strictObject({
  rating: z.enum(['up', 'down']).describe('up: the answer helped (a confirmed resolution when given after an agent answer and before any handoff); the latest rating counts'),
  message_id: z.string().min(1).max(255).optional().describe("the agent's answer rated (one of this conversation's agent messages)"),
});

export function registerAnalyticsRoutes({ router, registry, services }: RouteDeps<{ analytics: AnalyticsService; feedback: FeedbackService }>) {
  const tag = 'Analytics';

  defineRoute(router, registry, {
    method: 'get', path: '/v1/analytics/agents/{id}', tag, params: IdParamsSchema, query: AgentAnalyticsQuerySchema, response: AgentAnalyticsSchema,
    summary: "An agent's metrics per period (resolution, handoffs, response times, tools, confidence, SMS), from the hourly rollups of the key's mode",
    description: 'Each metric\'s formula is in its description. Computed from hourly aggregates a Temporal schedule rolls up every few minutes; console test chats and evaluations are left out.',
  }, ({ params, query, principal }) => services.analytics.getAgentAnalytics({
    ...scopeOf(principal), agentId: params.id, from: query.from ? new Date(query.from) : undefined, to: query.to ? new Date(query.to) : undefined,
    granularity: query.granularity, channel: query.channel, version: query.version,
  }));

  defineRoute(router, registry, { method: 'get', path: '/v1/analytics/settings', tag, response: AnalyticsSettingsSchema, summary: "The account's analytics settings (time zone, resolution window)" },
    ({ principal }) => services.analytics.getSettings({ accountId: principal.accountId }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/analytics/settings', tag, body: SettingsBodySchema, response: AnalyticsSettingsSchema,
    summary: "Change the account's analytics time zone or resolution window (a new window is applied to every hour at the next rollup)",
  }, ({ principal, body }) => services.analytics.updateSettings({ accountId: principal.accountId, ...body }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/conversations/{id}/feedback', tag: 'Conversations', params: IdParamsSchema, body: FeedbackBodySchema, response: FeedbackSchema, status: 201, visitor: true,
    summary: "Record the customer's thumbs-up or thumbs-down on a conversation (or one agent answer)",
    description: "One vote per conversation (or per agent answer, with `message_id`): rating again changes the vote (same id, new `created_at`). With a publishable key: the visitor's own conversation only. A thumbs-up after an agent answer and before any handoff or human message makes the conversation a confirmed resolution (see GET /v1/analytics/agents/{id}).",
  }, ({ params, body, principal, visitor }) => services.feedback.rate({
    conversationId: params.id, rating: body.rating, messageId: body.message_id,
    ...(visitor ? { visitor } : { scope: scopeOf(principal) }),
  }));
}
