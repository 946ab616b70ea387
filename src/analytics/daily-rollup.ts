import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { DAY_MS } from './conversation-facts';
import { aggregateOfRow, emptyAggregate, mergeInto, rowOfAggregate, type Aggregate, type StoredAggregate } from './hourly-metrics';
import { DailyRepo, type DayKey } from './daily.repo';

type Db = Kysely<DB> | Transaction<DB>;

/** Days of hourly rows summed at a time by a rebuild (bounded memory for a long history). */
const REBUILD_CHUNK_DAYS = 31;

/** Sums hourly rows into one aggregate per (mode, agent, version, channel, local day). */
function sumByDay(rows: Array<DayKey & StoredAggregate>) {
  const byKey = new Map<string, { key: DayKey; agg: Aggregate }>();
  for (const r of rows) {
    const id = `${r.livemode}\u0000${r.agent_id}\u0000${r.agent_version}\u0000${r.channel}\u0000${r.day}`;
    let slot = byKey.get(id);
    if (!slot) byKey.set(id, (slot = { key: { livemode: r.livemode, agent_id: r.agent_id, agent_version: r.agent_version, channel: r.channel, day: r.day }, agg: emptyAggregate() }));
    mergeInto(slot.agg, aggregateOfRow(r));
  }
  return [...byKey.values()].map(({ key, agg }) => ({ ...key, ...rowOfAggregate(agg) }));
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/**
 * The daily rollup (docs/decisions/analytics-daily-rollups.md): each local day of an account (in its time zone)
 * is the sum of that day's hourly rows, written again whole whenever one of its hours is rolled, in the same
 * transaction. It never reads raw tables, so it is exactly as idempotent as the hours are, and a late event
 * that lands in its hour lands in that hour's day. Days are kept only while they are cut in the account's zone
 * (`analytics_daily_state`); otherwise readers sum hourly rows and `rebuildStale` cuts them again.
 */
export class DailyRollup {
  private readonly repo = new DailyRepo();

  /** Sums again the account's local day holding `hour` (inside the hour's rollup transaction). */
  async rollDayOf(tx: Transaction<DB>, accountId: string, hour: Date) {
    await this.repo.lockAccount(tx, accountId);
    const zones = await this.repo.zones(tx, accountId);
    // Days not cut in the account's zone yet: the rebuild at the end of the rollup cuts them all.
    if (!zones || zones.daily_zone !== zones.time_zone) return;
    const day = await this.repo.dayOf(tx, hour, zones.time_zone);
    const rows = sumByDay(await this.repo.hourlyOf(tx, accountId, day.start, day.end, zones.time_zone));
    await this.repo.replaceDays(tx, accountId, day.day, nextDay(day.day), rows);
  }

  /** Cuts every day again, in its zone now, of each account whose days are stale. Answers how many accounts. */
  async rebuildStale(db: Kysely<DB>, heartbeat?: () => void): Promise<number> {
    const accounts = await this.repo.staleAccounts(db);
    for (const accountId of accounts) {
      await db.transaction().execute((tx) => this.rebuildAccount(tx, accountId, heartbeat));
      heartbeat?.();
    }
    return accounts.length;
  }

  private async rebuildAccount(tx: Transaction<DB>, accountId: string, heartbeat?: () => void) {
    await this.repo.lockAccount(tx, accountId);
    const zones = await this.repo.zones(tx, accountId);
    if (!zones) return;
    const timeZone = zones.time_zone;
    await this.repo.deleteDays(tx, accountId);
    const span = await this.repo.hourSpan(tx, accountId);
    if (span.first && span.last) {
      // Chunks cut at local midnights, so that no day is split between two chunks.
      let chunk = await this.repo.dayOf(tx, span.first, timeZone);
      while (chunk.start.getTime() <= span.last.getTime()) {
        const end = await this.repo.dayOf(tx, new Date(chunk.start.getTime() + REBUILD_CHUNK_DAYS * DAY_MS), timeZone);
        const rows = sumByDay(await this.repo.hourlyOf(tx, accountId, chunk.start, end.start, timeZone));
        await this.repo.replaceDays(tx, accountId, chunk.day, end.day, rows);
        heartbeat?.();
        chunk = end;
      }
    }
    await this.repo.setZone(tx, accountId, timeZone);
  }
}
