import type { Request, Router } from 'express';
import { z } from 'zod';
import type { AgentsService } from '../agents/agents.service';
import type { AnalyticsService } from '../analytics/analytics.service';
import { scopeOf } from '../domain/principal';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { AGENT_CHARTS, agentAnalyticsPage, chartData, homePage, type AnalyticsFilters } from './views/analytics.view';
import { chartCsv } from './views/charts';
import { CONVERSATION_CHANNELS } from '../domain/channels';

interface ConsoleAnalyticsServices { agents: AgentsService; analytics: AnalyticsService }

const FiltersSchema = z.object({
  // Absent: from the first day with data, at most 30 days (AnalyticsService.consoleRange).
  days: z.union([z.literal(''), z.coerce.number().pipe(z.union([z.literal(7), z.literal(30), z.literal(90)]))]).optional(),
  granularity: z.enum(['day', 'week']).default('day'),
  channel: z.union([z.enum(CONVERSATION_CHANNELS), z.literal('')]).optional(),
  chart: z.enum(AGENT_CHARTS).optional(),
});

function filtersOf(req: Request): Omit<AnalyticsFilters, 'days' | 'sinceFirstData'> & { days?: number; chart?: (typeof AGENT_CHARTS)[number] } {
  const f = FiltersSchema.parse(req.query);
  return { days: f.days || undefined, granularity: f.granularity, channel: f.channel || undefined, chart: f.chart };
}

const EXAMPLE_AGENT = 'Example support agent';

/** The account's home page (the console's first stop) and each agent's Analytics tab, with CSVs of each chart. */
export function registerConsoleAnalyticsRoutes(router: Router, { services }: ConsoleDeps<ConsoleAnalyticsServices>) {
  async function agentAnalytics(req: Request, res: Parameters<typeof sessionOf>[0]) {
    const { session } = sessionOf(res);
    const asked = filtersOf(req);
    const agent = await services.agents.getAgent({ ...scopeOf(session), agentId: idOf(req) });
    const range = await services.analytics.consoleRange({ ...scopeOf(session), agentIds: [agent.id], days: asked.days });
    const analytics = await services.analytics.getAgentAnalytics({
      ...scopeOf(session), agentId: agent.id, from: range.from, to: range.to, granularity: asked.granularity, channel: asked.channel,
    });
    return { agent, analytics, filters: { ...asked, days: range.days, sinceFirstData: range.sinceFirstData } };
  }

  router.get('/', page(async (_req, res) => {
    const { session, accountName } = sessionOf(res);
    const scope = scopeOf(session);
    const agents = (await services.agents.listAgents({ ...scope, page: { limit: 100 } })).data;
    const range = await services.analytics.consoleRange(scope);
    const [daily, week] = await Promise.all([
      services.analytics.accountDaily({ ...scope, from: range.from, to: range.to }),
      services.analytics.lastSevenDays({ ...scope, agentIds: agents.map((a) => a.id) }),
    ]);
    sendPage(res, {
      title: 'Home', active: '',
      body: homePage({
        accountName, timeZone: daily.timeZone, totals: daily.totals, series: daily.series, days: range.days, sinceFirstData: range.sinceFirstData,
        agents: agents.map((agent) => ({ agent, week: week.byAgent.get(agent.id) })),
        exampleAgentId: agents.find((a) => a.name === EXAMPLE_AGENT)?.id,
      }),
    });
  }));

  router.get('/home.csv', page(async (req, res) => {
    const { session } = sessionOf(res);
    const chart = z.enum(['rates', 'volume']).parse(req.query.chart);
    const range = await services.analytics.consoleRange(scopeOf(session));
    const daily = await services.analytics.accountDaily({ ...scopeOf(session), from: range.from, to: range.to });
    res.type('text/csv').attachment(`home-${chart}.csv`).send(chartCsv(chartData(chart, daily.totals, daily.series)));
  }));

  router.get('/agents/:id/analytics', page(async (req, res) => {
    const { agent, analytics, filters } = await agentAnalytics(req, res);
    sendPage(res, { title: `${agent.name} · Analytics`, active: 'agents', body: agentAnalyticsPage({ agent, analytics, filters }) });
  }));

  router.get('/agents/:id/analytics.csv', page(async (req, res) => {
    const { agent, analytics, filters } = await agentAnalytics(req, res);
    const chart = filters.chart ?? 'rates';
    const data = chartData(chart, analytics.totals, analytics.series.map((p) => ({ period: p.period, partial: p.partial, metrics: p.metrics })));
    res.type('text/csv').attachment(`${agent.id}-${chart}.csv`).send(chartCsv(data));
  }));
}
