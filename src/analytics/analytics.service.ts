import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { Scope } from '../domain/principal';
import { AppError } from '../domain/errors';
import type { AgentsService } from '../agents/agents.service';
import { AnalyticsRepo, type Granularity } from './analytics.repo';
import { DAY_MS, HOUR_MS } from './conversation-facts';
import { aggregateOfRow, emptyAggregate, mergeInto, type Aggregate } from './hourly-metrics';
import { toMetricsObject, type AgentAnalyticsObject, type MetricsObject } from './analytics.schemas';

/** At most this many periods in one answer (hourly: 41 days; daily: over two years). */
export const MAX_PERIODS = 1000;
const MAX_RANGE_MS = 400 * DAY_MS;

/** The agent analytics API and the console's charts: read from the hourly aggregates only. */
export class AnalyticsService {
  private readonly repo = new AnalyticsRepo();

  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService; clock?: () => Date }) {}

  async getSettings(input: { accountId: string }) {
    const s = await this.repo.settings(this.deps.db, input.accountId);
    return { object: 'analytics_settings' as const, ...s };
  }

  /** A new window changes past resolutions: the next rollup rolls every hour again. */
  async updateSettings(input: { accountId: string; time_zone?: string; resolution_window_hours?: number }) {
    const before = await this.repo.settings(this.deps.db, input.accountId);
    const set = {
      ...(input.time_zone !== undefined ? { time_zone: input.time_zone } : {}),
      ...(input.resolution_window_hours !== undefined ? { resolution_window_hours: input.resolution_window_hours } : {}),
    };
    // An empty body changes nothing and answers the settings as they are.
    const after = Object.keys(set).length === 0 ? before : await this.repo.updateSettings(this.deps.db, input.accountId, set);
    if (after.resolution_window_hours !== before.resolution_window_hours) await this.repo.resetWatermark(this.deps.db);
    return { object: 'analytics_settings' as const, ...after };
  }

  async getAgentAnalytics(input: Scope & { agentId: string; from?: Date; to?: Date; granularity?: Granularity; channel?: string; version?: number }): Promise<AgentAnalyticsObject> {
    const agent = await this.deps.agents.getAgent({ accountId: input.accountId, livemode: input.livemode, agentId: input.agentId });
    const granularity = input.granularity ?? 'day';
    const to = input.to ?? new Date(Math.ceil((this.deps.clock?.() ?? new Date()).getTime() / HOUR_MS) * HOUR_MS);
    const from = input.from ?? new Date(to.getTime() - 30 * DAY_MS);
    if (to.getTime() <= from.getTime()) throw new AppError('parameter_unprocessable', 'Invalid to: it must be after from', { param: 'to' });
    if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw new AppError('parameter_unprocessable', 'Invalid from: a period of at most 400 days', { param: 'from' });
    const unit = { hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS, month: 28 * DAY_MS }[granularity];
    if ((to.getTime() - from.getTime()) / unit > MAX_PERIODS) throw new AppError('parameter_unprocessable', `Invalid granularity: at most ${MAX_PERIODS} periods (use a coarser granularity or a shorter period)`, { param: 'granularity' });
    const { time_zone: timeZone, resolution_window_hours } = await this.repo.settings(this.deps.db, input.accountId);
    const { totals, series } = await this.series({ ...input, agentIds: [agent.id], from, to, granularity, timeZone, windowMs: resolution_window_hours * HOUR_MS });
    return {
      object: 'agent_analytics', agent_id: agent.id, livemode: input.livemode, from: from.toISOString(), to: to.toISOString(), granularity,
      time_zone: timeZone, resolution_window_hours, channel: input.channel ?? null, version: input.version ?? null,
      totals: toMetricsObject(totals),
      series: series.map((p) => ({ period: p.label, period_start: p.start.toISOString(), partial: p.partial, metrics: toMetricsObject(p.agg) })),
    };
  }

  /** Per period (every one, empty ones too) and in total, summed from the daily and hourly rows. */
  private async series(input: Scope & { agentIds?: string[]; from: Date; to: Date; granularity: Granularity; timeZone: string; windowMs: number; channel?: string; version?: number }) {
    const [rows, periods] = await Promise.all([this.repo.rows(this.deps.db, input, input), this.repo.periods(this.deps.db, input)]);
    // Not final: a period cut by the range, not over yet, or over for less than the resolution window (its
    // conversations' assumed resolutions are not all due: its resolution rate still rises).
    const now = this.now().getTime();
    const partial = (p: { start: Date; end: Date }) => p.start.getTime() < input.from.getTime() || p.end.getTime() > input.to.getTime() || p.end.getTime() + input.windowMs > now;
    const byStart = new Map(periods.map((p) => [p.start.getTime(), { ...p, partial: partial(p), agg: emptyAggregate() }]));
    const totals = emptyAggregate();
    for (const r of rows) {
      const a = aggregateOfRow(r);
      mergeInto(totals, a);
      const p = byStart.get(r.bucket.getTime());
      if (p) mergeInto(p.agg, a);
    }
    return { totals, series: [...byStart.values()] };
  }

  /** The last 7 days of each agent of the account (the agents list and the home page), and the account's total. */
  async lastSevenDays(input: Scope & { agentIds: string[] }): Promise<{ byAgent: Map<string, MetricsObject>; total: MetricsObject }> {
    const now = this.deps.clock?.() ?? new Date();
    const to = new Date(Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS);
    const from = new Date(to.getTime() - 7 * DAY_MS);
    const { time_zone: timeZone } = await this.repo.settings(this.deps.db, input.accountId);
    const rows = await this.repo.rows(this.deps.db, input, { agentIds: input.agentIds, from, to, granularity: 'day', timeZone });
    const byAgent = new Map<string, Aggregate>();
    const total = emptyAggregate();
    for (const r of rows) {
      const a = aggregateOfRow(r);
      mergeInto(total, a);
      mergeInto(byAgent.get(r.agent_id) ?? byAgent.set(r.agent_id, emptyAggregate()).get(r.agent_id)!, a);
    }
    return { byAgent: new Map([...byAgent].map(([k, v]) => [k, toMetricsObject(v)])), total: toMetricsObject(total) };
  }

  /** The account's daily series over a range (every agent): the home page's chart. */
  async accountDaily(input: Scope & { from: Date; to: Date }) {
    const { time_zone: timeZone, resolution_window_hours } = await this.repo.settings(this.deps.db, input.accountId);
    const { totals, series } = await this.series({ ...input, granularity: 'day', timeZone, windowMs: resolution_window_hours * HOUR_MS });
    return { timeZone, totals: toMetricsObject(totals), series: series.map((p) => ({ period: p.label, partial: p.partial, metrics: toMetricsObject(p.agg) })) };
  }

  private now() {
    return this.deps.clock?.() ?? new Date();
  }

  /**
   * The console's range: whole local days up to the end of the current hour (today so far is the last day).
   * `days` given: the last `days` days. Otherwise from the first day with data of the agents (every agent
   * without `agentIds`), at most 30 days back, so a new account's chart starts with its first conversations;
   * the last 7 days when there is none yet.
   */
  async consoleRange(input: Scope & { agentIds?: string[]; days?: number }): Promise<{ from: Date; to: Date; days: number; sinceFirstData: boolean }> {
    const now = this.now();
    const to = new Date(Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS);
    const days = input.days ?? 30;
    const d = await this.repo.localDays(this.deps.db, input, { now, daysBack: days - 1, agentIds: input.agentIds });
    if (input.days !== undefined) return { from: d.back, to, days, sinceFirstData: false };
    if (!d.first_day) return this.consoleRange({ ...input, days: 7 });
    if (d.first_day.getTime() <= d.back.getTime()) return { from: d.back, to, days, sinceFirstData: false };
    return { from: d.first_day, to, days: Math.max(1, Math.round((d.today.getTime() - d.first_day.getTime()) / DAY_MS) + 1), sinceFirstData: true };
  }

}
