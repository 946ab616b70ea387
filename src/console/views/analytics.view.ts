import type { AgentObject } from '../../agents/agent.schemas';
import type { AgentAnalyticsObject, MetricsObject } from '../../analytics/analytics.schemas';
import { FORMULAS } from '../../analytics/conversation-facts';
import { html, type Html } from '../../platform/html';
import { barChart, chartFigure, lineChart, type ChartData } from './charts';

/** The Analytics tab's and the home page's charts, each built from the API's own metrics object. */

const pct = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 10);
const pctText = (v: number | null) => (v === null ? '—' : `${pct(v)} %`);

export const AGENT_CHARTS = ['rates', 'volume', 'handoffs', 'response', 'tools', 'confidence'] as const;
export type AgentChart = (typeof AGENT_CHARTS)[number];

type Series = Array<{ period: string; partial?: boolean; metrics: MetricsObject }>;

/** The numbers of one chart (its table, its CSV, and what the SVG draws). */
export function chartData(chart: AgentChart, totals: MetricsObject, series: Series): ChartData {
  switch (chart) {
    case 'rates':
      return {
        id: 'rates', title: 'Resolution and handoff rate (%)', formula: `Resolution: ${FORMULAS.resolution_rate} Handoff: ${FORMULAS.handoff_rate} Automation: ${FORMULAS.automation_rate}`,
        columns: ['Period', 'Resolution rate %', 'Handoff rate %', 'Automation rate %'],
        rows: series.map((p) => [p.period, pct(p.metrics.resolution_rate), pct(p.metrics.handoff_rate), pct(p.metrics.automation_rate)]),
        partial: series.map((p) => p.partial === true),
      };
    case 'volume':
      return {
        id: 'volume', title: 'Conversations, resolved and handed off', formula: `${FORMULAS.conversations} Resolved: confirmed + assumed (see below).`,
        columns: ['Period', 'Conversations', 'Resolved', 'Handed off'],
        rows: series.map((p) => [p.period, p.metrics.conversations, p.metrics.resolved, p.metrics.handed_off]),
        partial: series.map((p) => p.partial === true),
      };
    case 'handoffs':
      return {
        id: 'handoffs', title: 'Handoffs by reason', formula: FORMULAS.handoff_rate,
        columns: ['Reason', 'Conversations'],
        rows: Object.entries(totals.handoffs_by_reason).sort((a, b) => b[1] - a[1]).map(([r, n]) => [r.replace(/_/g, ' '), n]),
      };
    case 'response':
      return {
        id: 'response', title: 'Response times (medians; run latency p95)', formula: `${FORMULAS.first_response} ${FORMULAS.time_to_resolution} ${FORMULAS.run_latency}`,
        columns: ['Measure', 'Milliseconds'],
        rows: [
          ['Agent first response', totals.first_response_ms.agent_median],
          ['Human first response', totals.first_response_ms.human_median],
          ['Agent time to resolution', totals.time_to_resolution_ms.agent_median],
          ['Human time to resolution', totals.time_to_resolution_ms.human_median],
          ['Run latency, median', totals.run_latency_ms.median],
          ['Run latency, p95', totals.run_latency_ms.p95],
        ],
      };
    case 'tools':
      return {
        id: 'tools', title: 'Tool calls by outcome', formula: FORMULAS.tool_calls,
        columns: ['Tool', 'OK', 'Error', 'Timed out', 'Rejected', 'Approval asked'],
        rows: totals.tool_calls.map((t) => [t.tool, t.ok, t.error, t.timed_out, t.rejected, t.approval_requested]),
      };
    case 'confidence':
      return {
        id: 'confidence', title: 'Confidence of answered runs', formula: FORMULAS.confidence,
        columns: ['Confidence', 'Runs'],
        rows: totals.confidence.map((b) => [`${b.from.toFixed(1)}–${b.to.toFixed(1)}`, b.runs]),
      };
  }
}

function renderChart(chart: AgentChart, data: ChartData): Html {
  if (chart === 'rates') return lineChart(data, { unit: 'count', max: 100 });
  if (chart === 'volume') return lineChart(data, { unit: 'count' });
  if (chart === 'response') return barChart(data, { unit: 'ms' });
  return barChart(data, { unit: 'count' });
}

function tiles(m: MetricsObject): Html {
  const tile = (label: string, value: string, note: string) => html`<div class="tile"><div class="tile-value">${value}</div><div class="tile-label">${label}</div><div class="hint">${note}</div></div>`;
  return html`<div class="tiles">
  ${tile('Conversations', String(m.conversations), `${m.customer_messages} customer messages, ${m.runs} runs`)}
  ${tile('Resolution rate', pctText(m.resolution_rate), `${m.resolved_confirmed} confirmed + ${m.resolved_assumed} assumed of ${m.involved} involved`)}
  ${tile('Automation rate', pctText(m.automation_rate), `involvement ${pctText(m.involvement_rate)} × resolution`)}
  ${tile('Handoff rate', pctText(m.handoff_rate), `${m.handed_off} handed off`)}
  ${tile('Reopen rate', pctText(m.reopen_rate), `${m.reopened} reopened within 7 days`)}
  ${tile('Durable rate', pctText(m.durable_rate), `${m.durable} still resolved after 7 days`)}
  ${tile('SMS', `${m.sms.segments} segments`, `${m.sms.messages} replies, cost ${m.sms.cost}`)}
  ${tile('Feedback', `${m.feedback.up} up · ${m.feedback.down} down`, 'latest rating per conversation')}
</div>`;
}

export interface AnalyticsFilters {
  days: number;
  /** The period was chosen as "from the first day with data" (no `days` asked). */
  sinceFirstData?: boolean;
  channel?: string;
  granularity: 'day' | 'week';
}

const filterQuery = (f: AnalyticsFilters) => `days=${f.sinceFirstData ? '' : f.days}&granularity=${f.granularity}${f.channel ? `&channel=${encodeURIComponent(f.channel)}` : ''}`;

/** The agent's Analytics tab: tiles, then each chart with its formula, its table and its CSV. */
export function agentAnalyticsPage(input: { agent: AgentObject; analytics: AgentAnalyticsObject; filters: AnalyticsFilters }): Html {
  const { agent, analytics, filters } = input;
  const series = analytics.series.map((p) => ({ period: p.period, partial: p.partial, metrics: p.metrics }));
  const base = `/console/agents/${agent.id}/analytics`;
  return html`<div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> / <a href="/console/agents/${agent.id}">${agent.name}</a> / <h1>Analytics</h1>
  <div class="muted">Periods in ${analytics.time_zone}; resolution window ${analytics.resolution_window_hours} h. The same numbers: <code>GET /v1/analytics/agents/${agent.id}</code>.</div></div>
</div>
  <form method="get" action="${base}" class="inline analytics-filters">
    <label>Period <select name="days">${filters.sinceFirstData ? html`<option value="" selected>since the first day with data (${filters.days} days)</option>` : ''}${[7, 30, 90].map((d) => html`<option value="${d}" ${!filters.sinceFirstData && filters.days === d ? 'selected' : ''}>last ${d} days</option>`)}</select></label>
    <label>Per <select name="granularity">${(['day', 'week'] as const).map((g) => html`<option value="${g}" ${filters.granularity === g ? 'selected' : ''}>${g}</option>`)}</select></label>
    <label>Channel <select name="channel"><option value="">all</option>${agent.channels.map((c) => html`<option value="${c}" ${filters.channel === c ? 'selected' : ''}>${c}</option>`)}</select></label>
    <button class="button">Show</button></form>
  ${tiles(analytics.totals)}
  <div class="charts">
  ${AGENT_CHARTS.map((c) => {
    const data = chartData(c, analytics.totals, series);
    return chartFigure(data, renderChart(c, data), `${base}.csv?chart=${c}&${filterQuery(filters)}`);
  })}
  </div>`;
}

/** The account's home page: its days across agents (from its first day with data, at most 30), and each agent's last 7 days. */
export function homePage(input: { accountName: string; timeZone: string; totals: MetricsObject; series: Series; days: number; sinceFirstData: boolean; agents: Array<{ agent: AgentObject; week?: MetricsObject }>; exampleAgentId?: string }): Html {
  const rates = chartData('rates', input.totals, input.series);
  const volume = chartData('volume', input.totals, input.series);
  return html`<div class="page-head"><div><h1>Home</h1><div class="muted">${input.accountName}: ${input.sinceFirstData ? `since the first day with data (${input.days} days)` : `the last ${input.days} days`}, every agent (periods in ${input.timeZone}; the days not final yet are hatched).</div></div>
  <div class="head-actions">${input.exampleAgentId ? html`<a class="button primary" href="/console/agents/${input.exampleAgentId}">Try the example agent</a>` : ''}<a class="button" href="/console/agents">Agents</a></div></div>
  ${input.totals.conversations === 0 ? html`<p class="empty">No conversations yet in the last ${input.days} days. Once customers write to your agents (the website chat, SMS, email), their resolution and handoff rates show here; figures are rolled up every few minutes.</p>` : ''}
  ${tiles(input.totals)}
  <div class="charts">
  ${chartFigure(rates, renderChart('rates', rates), '/console/home.csv?chart=rates')}
  ${chartFigure(volume, renderChart('volume', volume), '/console/home.csv?chart=volume')}
  </div>
  <h2>Agents, last 7 days</h2>
  ${agentsWeekTable(input.agents)}`;
}

export function agentsWeekTable(agents: Array<{ agent: AgentObject; week?: MetricsObject }>): Html {
  if (agents.length === 0) return html`<p class="empty">No agents yet. <a href="/console/agents/new">Create one</a>.</p>`;
  return html`<table class="list"><thead><tr><th>Agent</th><th>Conversations (7 days)</th><th>Resolution (7 days)</th><th>Handoff rate</th><th></th></tr></thead><tbody>
  ${agents.map(({ agent, week }) => html`<tr><td><a href="/console/agents/${agent.id}">${agent.name}</a></td><td>${week?.conversations ?? 0}</td>
    <td>${pctText(week?.resolution_rate ?? null)}</td><td>${pctText(week?.handoff_rate ?? null)}</td><td><a href="/console/agents/${agent.id}/analytics">Analytics</a></td></tr>`)}
  </tbody></table>`;
}
