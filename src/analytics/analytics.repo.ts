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

/** Reads the hourly aggregates (never the raw tables), each row with the start of its period in the account's zone. */
export class AnalyticsRepo {
  async hourlyRows(db: Db, scope: Scope, input: { agentIds?: string[]; from: Date; to: Date; granularity: Granularity; timeZone: string; channel?: string; version?: number }): Promise<HourlyRow[]> {
    const { rows } = await sql<HourlyRow>`
      select agent_id, (date_trunc(${input.granularity}, hour at time zone ${input.timeZone}) at time zone ${input.timeZone}) as bucket,
        counts, handoff_reasons, tool_calls, histograms, sms_cost::text as sms_cost
      from analytics_hourly
      where account_id = ${scope.accountId} and livemode = ${scope.livemode} and hour >= ${input.from} and hour < ${input.to}
        ${input.agentIds ? sql`and agent_id = any(${input.agentIds})` : sql``}
        ${input.channel ? sql`and channel = ${input.channel}` : sql``}
        ${input.version !== undefined ? sql`and agent_version = ${input.version}` : sql``}`.execute(db);
    return rows;
  }

  /** The periods from `from` to `to` in the zone: each one's start (an instant) and its local label. */
  async periods(db: Db, input: { from: Date; to: Date; granularity: Granularity; timeZone: string }): Promise<Array<{ start: Date; label: string }>> {
    const step = `1 ${input.granularity}`;
    const format = input.granularity === 'hour' ? 'YYYY-MM-DD"T"HH24:00' : input.granularity === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD';
    const { rows } = await sql<{ start: Date; label: string }>`
      select (g at time zone ${input.timeZone}) as start, to_char(g, ${format}) as label
      from generate_series(date_trunc(${input.granularity}, ${input.from}::timestamptz at time zone ${input.timeZone}),
        (${input.to}::timestamptz at time zone ${input.timeZone}) - interval '1 microsecond', ${step}::interval) g`.execute(db);
    return rows;
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
