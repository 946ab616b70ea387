import type { Request, Router } from 'express';
import { z } from 'zod';
import type { AgentsService } from '../agents/agents.service';
import type { AnalyticsService } from '../analytics/analytics.service';
import { scopeOf } from '../domain/principal';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { AGENT_CHARTS, agentAnalyticsPage, chartData, homePage, type AnalyticsFilters } from './views/analytics.view';
import { chartCsv } from './views/charts';
import { CONVERSATION_CHANNELS } from '../domain/channels';
import { DAY_MS, HOUR_MS } from '../analytics/conversation-facts';

interface ConsoleAnalyticsServices { agents: AgentsService; analytics: AnalyticsService }

const FiltersSchema = z.object({
  days: z.coerce.number().pipe(z.union([z.literal(7), z.literal(30), z.literal(90)])).default(30),
  granularity: z.enum(['day', 'week']).default('day'),
  channel: z.union([z.enum(CONVERSATION_CHANNELS), z.literal('')]).optional(),
  chart: z.enum(AGENT_CHARTS).optional(),
});

function filtersOf(req: Request): AnalyticsFilters & { chart?: (typeof AGENT_CHARTS)[number] } {
  const f = FiltersSchema.parse(req.query);
  return { days: f.days, granularity: f.granularity, channel: f.channel || undefined, chart: f.chart };
}

const EXAMPLE_AGENT = 'Example support agent';

/** The account's home page (the console's first stop) and each agent's Analytics tab, with CSVs of each chart. */
export function registerConsoleAnalyticsRoutes(router: Router, { services }: ConsoleDeps<ConsoleAnalyticsServices>) {
  async function agentAnalytics(req: Request, res: Parameters<typeof sessionOf>[0]) {
    const { session } = sessionOf(res);
    const filters = filtersOf(req);
    const agent = await services.agents.getAgent({ ...scopeOf(session), agentId: idOf(req) });
    const to = new Date(Math.ceil(Date.now() / HOUR_MS) * HOUR_MS);
    const analytics = await services.analytics.getAgentAnalytics({
      ...scopeOf(session), agentId: agent.id, from: new Date(to.getTime() - filters.days * DAY_MS), to, granularity: filters.granularity, channel: filters.channel,
    });
    return { agent, analytics, filters };
  }

  router.get('/', page(async (_req, res) => {
    const { session, accountName } = sessionOf(res);
    const scope = scopeOf(session);
    const agents = (await services.agents.listAgents({ ...scope, page: { limit: 100 } })).data;
    const [daily, week] = await Promise.all([
      services.analytics.accountDaily({ ...scope, days: 30 }),
      services.analytics.lastSevenDays({ ...scope, agentIds: agents.map((a) => a.id) }),
    ]);
    sendPage(res, {
      title: 'Home', active: '',
      body: homePage({
        accountName, timeZone: daily.timeZone, totals: daily.totals, series: daily.series,
        agents: agents.map((agent) => ({ agent, week: week.byAgent.get(agent.id) })),
        exampleAgentId: agents.find((a) => a.name === EXAMPLE_AGENT)?.id,
      }),
    });
  }));

  router.get('/home.csv', page(async (req, res) => {
    const { session } = sessionOf(res);
    const chart = z.enum(['rates', 'volume']).parse(req.query.chart);
    const daily = await services.analytics.accountDaily({ ...scopeOf(session), days: 30 });
    res.type('text/csv').attachment(`home-${chart}.csv`).send(chartCsv(chartData(chart, daily.totals, daily.series)));
  }));

  router.get('/agents/:id/analytics', page(async (req, res) => {
    const { agent, analytics, filters } = await agentAnalytics(req, res);
    sendPage(res, { title: `${agent.name} · Analytics`, active: 'agents', body: agentAnalyticsPage({ agent, analytics, filters }) });
  }));

  router.get('/agents/:id/analytics.csv', page(async (req, res) => {
    const { agent, analytics, filters } = await agentAnalytics(req, res);
    const chart = filters.chart ?? 'rates';
    const data = chartData(chart, analytics.totals, analytics.series.map((p) => ({ period: p.period, metrics: p.metrics })));
    res.type('text/csv').attachment(`${agent.id}-${chart}.csv`).send(chartCsv(data));
  }));
}
