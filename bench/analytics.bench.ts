/**
 * npm run bench:analytics — the analytics rollup and its readers over a quarter of traffic, on the stack as
 * `npm start` runs it (Temporal dev server, API and worker in one process, the PostgreSQL server at DATABASE_URL).
 * Seeds with bulk SQL (generate_series) BENCH_RUNS runs (default 1,000,000) over BENCH_DAYS days (90) in
 * BENCH_PER_DAY conversations a day (2,000): each run a customer message and (unless it hands off) an agent
 * answer; a seventh of conversations hand off at their first turn, a quarter get a thumbs-up, a tenth of runs
 * call a tool. Then times:
 * - rollup_backlog_s: the first rollup (`rollUpDue` with no watermark: every hour with data);
 * - rollup_hour_ms: rolling one hour again (median of 5, an hour in the middle of the period);
 * - api_p95_ms: GET /v1/analytics/agents/{id} over the 90 days at daily granularity (BENCH_API_REQUESTS, 50, one at a time);
 * - console_first_load_ms: headless Chromium's first load of the agent's Analytics tab (90 days), navigation start
 *   to the load event.
 * gaps_seconds is measured by the knowledge-gaps benchmark (null here). Prints one JSON line.
 */
import os from 'node:os';
import { sql } from 'kysely';
import { chromium } from 'playwright-core';
import { buildTestConfig } from '../test/support/config';
import { apiClient } from '../test/support/http';
import { machineInfo, percentile, round, startBenchStack } from './support';

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 90);
const PER_DAY = Number(process.env.BENCH_PER_DAY ?? 2000);
const API_REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 50);
const HOUR_MS = 3_600_000;

async function main() {
  const config = buildTestConfig({});
  const stack = await startBenchStack({ label: 'bench-analytics', config });
  const { runtime, db } = stack;
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Bench analytics' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const agent = await runtime.services.agents.createAgent({ accountId: account.id, livemode: false, config: { name: 'Bench agent', channels: ['chat', 'sms'] } });
    await runtime.services.agents.publishAgent({ accountId: account.id, livemode: false, agentId: agent.id });

    const conversations = DAYS * PER_DAY;
    const end = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS);
    const start = new Date(end.getTime() - DAYS * 86_400_000);
    const step = (DAYS * 86_400) / conversations; // seconds between conversation starts
    const seedStarted = performance.now();
    // The transcript's stream trigger numbers every message per conversation (one row lock each): bulk seeding
    // goes around it, as an import would; the rollup reads the messages, not their stream events.
    await sql`alter table conversation_messages disable trigger conversation_messages_stream`.execute(db);
    const p = { acct: account.id, agent: agent.id };
    // Run r: conversation r % N, turn r / N, 90 s apart. Seeded a day of conversations at a time (each
    // statement stays well under the connection's statement timeout).
    const runAt = sql`(${start}::timestamptz + make_interval(secs => (r % ${conversations}) * ${step}::float8 + (r / ${conversations}) * 90))`;
    const handsOff = sql`((r % ${conversations}) % 7 = 0 and r / ${conversations} = 0)`;
    const maxTurn = Math.ceil(RUNS / conversations);
    for (let day = 0; day < DAYS; day++) {
      const lo = day * PER_DAY, hi = (day + 1) * PER_DAY - 1;
      const runsOfDay = sql`generate_series(${lo}::int, ${hi}::int) c cross join generate_series(0, ${maxTurn}::int) t cross join lateral (select c + t * ${conversations}::int as r) x`;
      await sql`insert into conversations (id, account_id, livemode, agent_id, channel, status, customer, context, tags, metadata, handoff, created_at, updated_at)
        select 'cnv_b' || g, ${p.acct}, false, ${p.agent}, case when g % 5 = 0 then 'sms' else 'chat' end, case when g % 7 = 0 then 'handed_off' else 'active' end,
          '{}', '{}', '[]', '{}', null, ${start}::timestamptz + make_interval(secs => g * ${step}::float8), ${start}::timestamptz + make_interval(secs => g * ${step}::float8)
        from generate_series(${lo}::int, ${hi}::int) g`.execute(db);
      await sql`insert into conversation_messages (id, account_id, livemode, conversation_id, role, channel, content, attachments, run_id, created_at)
        select 'msg_bc' || r, ${p.acct}, false, 'cnv_b' || (r % ${conversations}), 'customer', 'chat', 'question', '[]', 'run_b' || r, ${runAt}
        from ${runsOfDay} where r < ${RUNS}`.execute(db);
      await sql`insert into runs (id, account_id, livemode, conversation_id, message_id, agent_id, agent_version, channel, status, confidence, retrieval, decision, reply, handoff, usage, error, guardrail_notes, required_action, reply_message_id, created_at, updated_at, started_at, completed_at)
        select 'run_b' || r, ${p.acct}, false, 'cnv_b' || (r % ${conversations}), 'msg_bc' || r, ${p.agent}, 1, 'chat', 'completed', 0.4 + (r % 60) / 100.0, '[]', null,
          case when ${handsOff} then null else '{"role":"agent","content":"answer"}'::jsonb end,
          case when ${handsOff} then jsonb_build_object('reason', (array['low_confidence','no_supporting_source','customer_requested'])[1 + r % 3]) end,
          '{}', null, '[]', null, null, ${runAt}, ${runAt}, ${runAt}, ${runAt} + make_interval(secs => 0.6 + (r % 50) / 10.0)
        from ${runsOfDay} where r < ${RUNS}`.execute(db);
      await sql`insert into conversation_messages (id, account_id, livemode, conversation_id, role, channel, content, attachments, run_id, created_at)
        select 'msg_ba' || r, ${p.acct}, false, 'cnv_b' || (r % ${conversations}), 'agent', 'chat', 'answer', '[]', 'run_b' || r, ${runAt} + interval '2 seconds'
        from ${runsOfDay} where r < ${RUNS} and not ${handsOff}`.execute(db);
      await sql`insert into run_tool_calls (id, run_id, seq, tool, arguments, status, result, error, latency_ms, attempts, created_at, updated_at)
        select 'call_b' || r, 'run_b' || r, 0, case when r % 20 = 3 then 'refund' else 'lookup_order' end, '{}', (array['ok','ok','ok','error','timed_out'])[1 + r % 5], null, null, 300, 1, ${runAt}, ${runAt}
        from ${runsOfDay} where r < ${RUNS} and r % 10 = 3`.execute(db);
      await sql`insert into conversation_feedback (id, account_id, livemode, conversation_id, message_id, rating, created_at)
        select 'fdbk_b' || g, ${p.acct}, false, 'cnv_b' || g, null, 'up', ${start}::timestamptz + make_interval(secs => g * ${step}::float8 + 600)
        from generate_series(${lo}::int, ${hi}::int) g where g % 4 = 1`.execute(db);
    }
    await sql`alter table conversation_messages enable trigger conversation_messages_stream`.execute(db);
    await sql`analyze`.execute(db);
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const rollup = runtime.services.analyticsRollup;
    const backlogStarted = performance.now();
    const backlog = await rollup.rollUpDue();
    const rollupBacklogS = (performance.now() - backlogStarted) / 1000;

    const middle = new Date(start.getTime() + (DAYS / 2) * 86_400_000 + 14 * HOUR_MS);
    const hourTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await rollup.rollUpHour({ hour: middle });
      hourTimes.push(performance.now() - t);
    }

    const call = apiClient(stack.baseUrl, secret);
    const q = `/v1/analytics/agents/${agent.id}?granularity=day&from=${encodeURIComponent(start.toISOString())}&to=${encodeURIComponent(end.toISOString())}`;
    const first = await call('GET', q);
    if (first.status !== 200) throw new Error(`analytics API: ${first.status} ${JSON.stringify(first.body)}`);
    const apiTimes: number[] = [];
    for (let i = 0; i < API_REQUESTS; i++) {
      const t = performance.now();
      const res = await call('GET', q);
      apiTimes.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`analytics API: ${res.status}`);
    }

    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    let consoleFirstLoadMs = Number.NaN;
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${stack.baseUrl}/console/sign-in`);
      await page.fill('input[name=secret_key]', secret);
      await page.click('text=Sign in with key');
      await page.waitForURL((u) => !u.pathname.startsWith('/console/sign-in'));
      await page.goto(`${stack.baseUrl}/console/agents/${agent.id}/analytics?days=90`);
      consoleFirstLoadMs = await page.evaluate<number>(`(() => { const n = performance.getEntriesByType('navigation')[0]; return Math.round(n.loadEventEnd - n.startTime); })()`);
    } finally {
      await browser.close();
    }

    const totals = first.body.totals as { conversations: number; runs: number };
    hourTimes.sort((a, b) => a - b);
    apiTimes.sort((a, b) => a - b);
    console.log(JSON.stringify({
      rollup_hour_ms: round(percentile(hourTimes, 50)),
      rollup_backlog_s: round(rollupBacklogS),
      api_p95_ms: round(percentile(apiTimes, 95)),
      console_first_load_ms: consoleFirstLoadMs,
      gaps_seconds: null,
      seeded: { runs: RUNS, days: DAYS, conversations_per_day: PER_DAY, seed_s: round(seedSeconds), hours_rolled: backlog.hours },
      read_back: { conversations: totals.conversations, runs: totals.runs },
      api_median_ms: round(percentile(apiTimes, 50)),
      load: os.loadavg().map((l) => round(l, 2)),
      machine: machineInfo(),
    }));
  } finally {
    await stack.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
