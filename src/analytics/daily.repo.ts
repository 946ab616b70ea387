import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { StoredAggregate } from './hourly-metrics';

type Db = Kysely<DB> | Transaction<DB>;

export interface DayKey {
  livemode: boolean;
  agent_id: string;
  agent_version: number;
  channel: string;
  /** The local date, 'YYYY-MM-DD'. */
  day: string;
}

/** What the daily rollup reads (the hourly rows, never the raw tables) and writes (analytics_daily). */
export class DailyRepo {
  /** One writer of an account's days at a time (an hour's rollup and a rebuild of the account). */
  async lockAccount(db: Db, accountId: string) {
    await sql`select pg_advisory_xact_lock(hashtext(${`analytics_daily:${accountId}`}))`.execute(db);
  }

  /** The account's zone and the zone its daily rows are cut in (null: none yet). */
  async zones(db: Db, accountId: string): Promise<{ time_zone: string; daily_zone: string | null } | undefined> {
    return db.selectFrom('accounts').leftJoin('analytics_daily_state as s', 's.account_id', 'accounts.id')
      .select(['accounts.time_zone', 's.time_zone as daily_zone']).where('accounts.id', '=', accountId).executeTakeFirst();
  }

  /** The local day (in `timeZone`) holding the instant: its date and the instants it starts and ends at. */
  async dayOf(db: Db, at: Date, timeZone: string): Promise<{ day: string; start: Date; end: Date }> {
    const { rows } = await sql<{ day: string; start: Date; end: Date }>`
      select d::text as day, (d::timestamp at time zone ${timeZone}) as start, ((d + 1)::timestamp at time zone ${timeZone}) as "end"
      from (select (${at}::timestamptz at time zone ${timeZone})::date as d) x`.execute(db);
    return rows[0]!;
  }

  /** The account's hourly rows starting in [from, to), each with its local day. */
  async hourlyOf(db: Db, accountId: string, from: Date, to: Date, timeZone: string): Promise<Array<DayKey & StoredAggregate>> {
    const { rows } = await sql<DayKey & StoredAggregate>`
      select livemode, agent_id, agent_version, channel, (hour at time zone ${timeZone})::date::text as day,
        counts, handoff_reasons, tool_calls, histograms, sms_cost::text as sms_cost
      from analytics_hourly where account_id = ${accountId} and hour >= ${from} and hour < ${to}`.execute(db);
    return rows;
  }

  async hourSpan(db: Db, accountId: string): Promise<{ first: Date | null; last: Date | null }> {
    const { rows } = await sql<{ first: Date | null; last: Date | null }>`
      select min(hour) as first, max(hour) as last from analytics_hourly where account_id = ${accountId}`.execute(db);
    return rows[0]!;
  }

  /** Replaces the account's daily rows of the days [fromDay, toDay) (local dates) with `rows`. */
  async replaceDays(db: Db, accountId: string, fromDay: string, toDay: string, rows: Array<DayKey & { counts: string; handoff_reasons: string; tool_calls: string; histograms: string; sms_cost: number }>) {
    await db.deleteFrom('analytics_daily').where('account_id', '=', accountId).where('day', '>=', fromDay).where('day', '<', toDay).execute();
    for (let i = 0; i < rows.length; i += 500) {
      await db.insertInto('analytics_daily').values(rows.slice(i, i + 500).map((r) => ({ ...r, account_id: accountId }))).execute();
    }
  }

  async deleteDays(db: Db, accountId: string) {
    await db.deleteFrom('analytics_daily').where('account_id', '=', accountId).execute();
  }

  async setZone(db: Db, accountId: string, timeZone: string) {
    await db.insertInto('analytics_daily_state').values({ account_id: accountId, time_zone: timeZone })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ time_zone: timeZone })).execute();
  }

  /** Accounts with hourly rows whose days are not cut in their zone (a changed zone; never built). */
  async staleAccounts(db: Db): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      select a.id from accounts a left join analytics_daily_state s on s.account_id = a.id
      where s.time_zone is distinct from a.time_zone and exists (select 1 from analytics_hourly h where h.account_id = a.id)`.execute(db);
    return rows.map((r) => r.id);
  }
}
