import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { seedAgent, type AgentFixture } from '../support/agents';
import { useTestStack } from '../support/stack';
import { analyticsSeeder, seedTwoWeeks } from '../support/analytics-seed';
import { DAY_MS, HOUR_MS } from '../../src/analytics/conversation-facts';

const ctx = useTestStack({ label: __filename });

/**
 * The daily rollup (docs/decisions/analytics-daily-rollups.md): day, week and month periods are read from
 * daily rows; each answer must equal what the hourly rows alone give (the reader falls back to them while an
 * account's days are not cut in its zone, which is how the comparison is made).
 */
describe('analytics daily rollups: the same numbers as the hourly rows, kept up to date', () => {
  it('answers day and week periods from days cut in the account zone, through late events, re-rolls and a zone change', async () => {
    const f = await seedAgent(ctx.stack);
    const db = ctx.stack.database.db;
    const rollup = ctx.stack.services.analyticsRollup;
    assert.equal((await f.call('POST', '/v1/analytics/settings', { time_zone: 'Europe/Paris' })).status, 200);
    const end = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS);
    await seedTwoWeeks(db, f, end);
    await rollup.rollUpDue();

    const zoneOfDays = async () => (await sql<{ time_zone: string }>`select time_zone from analytics_daily_state where account_id = ${f.accountId}`.execute(db)).rows[0]?.time_zone;
    const dailyRows = async () => (await sql<{ n: number }>`select count(*)::int as n from analytics_daily where account_id = ${f.accountId}`.execute(db)).rows[0]!.n;
    assert.equal(await zoneOfDays(), 'Europe/Paris', 'the rollup cut the days in the account zone');
    assert.ok((await dailyRows()) >= 14, 'a row per local day (and channel) with traffic');

    // From a time inside a local day (partial first and last days come from hourly rows), 16 days.
    const from = new Date(end.getTime() - 16 * DAY_MS + 5 * HOUR_MS);
    const query = (granularity: string) => `granularity=${granularity}&from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(end.toISOString())}`;
    const read = async (granularity: string) => {
      const res = await f.call('GET', `/v1/analytics/agents/${f.agentId}?${query(granularity)}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    /** The answer from the hourly rows alone (the days marked as not cut in the account's zone). */
    const fromHours = async (granularity: string) => {
      const zone = await zoneOfDays();
      await sql`delete from analytics_daily_state where account_id = ${f.accountId}`.execute(db);
      try {
        return await read(granularity);
      } finally {
        if (zone) await sql`insert into analytics_daily_state (account_id, time_zone) values (${f.accountId}, ${zone})`.execute(db);
      }
    };
    const same = async (label: string) => {
      for (const g of ['day', 'week', 'month']) assert.deepEqual(await read(g), await fromHours(g), `${label}: ${g} periods`);
    };

    const first = await read('day');
    assert.ok([16, 17].includes(first.series.length), 'every local day touched by the 16 days asked for');
    assert.ok(first.totals.conversations > 50 && first.totals.resolved > 0 && first.totals.handed_off > 0);
    await same('after the first rollup');

    // A late run and a customer coming back, in an hour of the middle of the period: the due rollup rolls that
    // hour, and its day with it.
    const s = analyticsSeeder(db, f);
    const lateHour = new Date(end.getTime() - 6 * DAY_MS + 2 * HOUR_MS);
    const c = await s.conversation(new Date(lateHour.getTime() + 60_000), 'sms');
    const m = await s.message(c, 'customer', new Date(lateHour.getTime() + 60_000));
    await s.run(c, m, new Date(lateHour.getTime() + 60_000), { handoff: 'customer_requested' });
    await rollup.rollUpDue();
    const after = await read('day');
    assert.equal(after.totals.conversations, first.totals.conversations + 1, 'the late conversation is counted');
    assert.equal(after.totals.handoffs_by_reason.customer_requested, (first.totals.handoffs_by_reason.customer_requested ?? 0) + 1);
    await same('after a late event');

    // Rolling an hour again changes no daily row.
    const snapshot = async () => (await sql`select * from analytics_daily where account_id = ${f.accountId} order by day, channel, agent_version`.execute(db)).rows;
    const before = await snapshot();
    await rollup.rollUpHour({ hour: lateHour });
    await rollup.rollUpHour({ hour: lateHour });
    assert.deepEqual(await snapshot(), before, 'idempotent');

    // A new zone: answered from the hourly rows at once, in the new zone; the next rollup cuts the days again.
    assert.equal((await f.call('POST', '/v1/analytics/settings', { time_zone: 'America/New_York' })).status, 200);
    const meanwhile = await read('day');
    assert.equal(meanwhile.time_zone, 'America/New_York');
    assert.equal(meanwhile.totals.conversations, after.totals.conversations);
    assert.notDeepEqual(meanwhile.series.map((p: { period_start: string }) => p.period_start), after.series.map((p: { period_start: string }) => p.period_start), 'periods cut at New York midnights');
    await rollup.rollUpDue();
    assert.equal(await zoneOfDays(), 'America/New_York');
    assert.deepEqual(await read('day'), meanwhile, 'the rebuilt days give what the hours gave');
    await same('after a zone change');
  });
});
