import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export type Granularity = 'hour' | 'day' | 'week' | 'month';

export interface HourlyRow {
  agent_id: string;
  bucket: Date;
  counts: Record<string, number>;
  handoff_reasons: Record<string, number>;
  tool_calls: Record<string, Record<string, number>>;
  histograms: Record<string, number[]>;
  sms_cost: string;
}

export interface RowsInput {
  agentIds?: string[];
  from: Date;
  to: Date;
  granularity: Granularity;
  timeZone: string;
  channel?: string;
  version?: number;
}

/**
 * Reads the aggregates (never the raw tables), each row with the start of its period in the account's zone:
 * the daily rows for the whole local days of the range when they are cut in that zone, the hourly rows for the
 * rest (hourly periods; the range's partial first and last days; an account whose days are being cut again).
 */
export class AnalyticsRepo {
  async rows(db: Db, scope: Scope, input: RowsInput): Promise<HourlyRow[]> {
    const filters = sql`account_id = ${scope.accountId} and livemode = ${scope.livemode}
        ${input.agentIds ? sql`and agent_id = any(${input.agentIds})` : sql``}
        ${input.channel ? sql`and channel = ${input.channel}` : sql``}
        ${input.version !== undefined ? sql`and agent_version = ${input.version}` : sql``}`;
    const hourly = (except?: { start: Date; end: Date }) => sql`
      select agent_id, (date_trunc(${input.granularity}, hour at time zone ${input.timeZone}) at time zone ${input.timeZone}) as bucket,
        counts, handoff_reasons, tool_calls, histograms, sms_cost::text as sms_cost
      from analytics_hourly
      where ${filters} and hour >= ${input.from} and hour < ${input.to}
        ${except ? sql`and not (hour >= ${except.start} and hour < ${except.end})` : sql``}`;
    const days = input.granularity === 'hour' ? undefined : await this.wholeDays(db, scope.accountId, input);
    if (!days) {
      const { rows } = await hourly().execute(db);
      return rows as HourlyRow[];
    }
    const { rows } = await sql<HourlyRow>`${hourly(days)}
      union all
      select agent_id, (date_trunc(${input.granularity}, day::timestamp) at time zone ${input.timeZone}) as bucket,
        counts, handoff_reasons, tool_calls, histograms, sms_cost::text as sms_cost
      from analytics_daily
      where ${filters} and day >= ${days.firstDay}::date and day < ${days.endDay}::date`.execute(db);
    return rows;
  }

  /**
   * The whole local days inside [from, to) (first day, the day after the last, and the instants they start at),
   * when the account's days are cut in `timeZone`; undefined when there are none or the days cannot be used.
   */
  private async wholeDays(db: Db, accountId: string, input: { from: Date; to: Date; timeZone: string }) {
    const { rows } = await sql<{ daily_zone: string | null; first_day: string; end_day: string; start: Date; end: Date }>`
      select (select time_zone from analytics_daily_state where account_id = ${accountId}) as daily_zone,
        f::text as first_day, e::text as end_day, (f::timestamp at time zone ${input.timeZone}) as start, (e::timestamp at time zone ${input.timeZone}) as "end"
      from (select (${input.to}::timestamptz at time zone ${input.timeZone})::date as e,
        (date_trunc('day', ${input.from}::timestamptz at time zone ${input.timeZone} - interval '1 microsecond') + interval '1 day')::date as f) x`.execute(db);
    const r = rows[0];
    if (!r || r.daily_zone !== input.timeZone || r.first_day >= r.end_day) return undefined;
    return { firstDay: r.first_day, endDay: r.end_day, start: r.start, end: r.end };
  }

  /** The periods from `from` to `to` in the zone: each one's start and end (instants) and its local label. */
  async periods(db: Db, input: { from: Date; to: Date; granularity: Granularity; timeZone: string }): Promise<Array<{ start: Date; end: Date; label: string }>> {
    const step = `1 ${input.granularity}`;
    const format = input.granularity === 'hour' ? 'YYYY-MM-DD"T"HH24:00' : input.granularity === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD';
    const { rows } = await sql<{ start: Date; end: Date; label: string }>`
      select (g at time zone ${input.timeZone}) as start, ((g + ${step}::interval) at time zone ${input.timeZone}) as "end", to_char(g, ${format}) as label
      from generate_series(date_trunc(${input.granularity}, ${input.from}::timestamptz at time zone ${input.timeZone}),
        (${input.to}::timestamptz at time zone ${input.timeZone}) - interval '1 microsecond', ${step}::interval) g`.execute(db);
    return rows;
  }

  /**
   * In the account's zone, in one read: the instant today starts, the one `daysBack` local days before, and the
   * start of the local day of the first hour with aggregates of the agents (every agent without `agentIds`).
   */
  async localDays(db: Db, scope: Scope, input: { now: Date; daysBack: number; agentIds?: string[] }): Promise<{ today: Date; back: Date; first_day: Date | null }> {
    const { rows } = await sql<{ today: Date; back: Date; first_day: Date | null }>`
      select (date_trunc('day', ${input.now}::timestamptz at time zone a.time_zone) at time zone a.time_zone) as today,
        ((date_trunc('day', ${input.now}::timestamptz at time zone a.time_zone) - make_interval(days => ${input.daysBack})) at time zone a.time_zone) as back,
        (select date_trunc('day', min(h.hour) at time zone a.time_zone) at time zone a.time_zone from analytics_hourly h
          where h.account_id = a.id and h.livemode = ${scope.livemode} ${input.agentIds ? sql`and h.agent_id = any(${input.agentIds})` : sql``}) as first_day
      from accounts a where a.id = ${scope.accountId}`.execute(db);
    return rows[0]!;
  }

  async settings(db: Db, accountId: string) {
    return db.selectFrom('accounts').select(['time_zone', 'resolution_window_hours']).where('id', '=', accountId).executeTakeFirstOrThrow();
  }

  async updateSettings(db: Db, accountId: string, set: { time_zone?: string; resolution_window_hours?: number }) {
    return db.updateTable('accounts').set(set).where('id', '=', accountId).returning(['time_zone', 'resolution_window_hours']).executeTakeFirstOrThrow();
  }

  /** Forgets the rollup watermark: the next rollup rolls every hour again (a new resolution window changes past hours). */
  async resetWatermark(db: Db) {
    await db.deleteFrom('analytics_rollup_state').where('id', '=', 'hourly').execute();
  }
}
