/**
 * Where the inbox's first page spends its time (bench-only; `npx tsx bench/inbox-profile.ts`): the data of
 * `npm run bench:inbox`, then each part of GET /console/inbox timed alone (agents, page, counts, the whole
 * page over HTTP), and EXPLAIN ANALYZE of every statement the page runs (captured at pg.Client#query).
 */
import pg from 'pg';
import { sql } from 'kysely';
import { buildTestConfig } from '../test/support/config';
import { signInToConsole } from '../test/support/console';
import { loadInboxData } from './inbox-data';
import { percentile, round, startBenchStack } from './support';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20);
const captured: { text: string; values: unknown[] }[] = [];
let capturing = false;
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
  if (capturing && typeof args[0] === 'string') captured.push({ text: args[0], values: (args[1] as unknown[]) ?? [] });
  else if (capturing && args[0] && typeof args[0] === 'object' && 'text' in (args[0] as object)) {
    const q = args[0] as { text: string; values?: unknown[] };
    captured.push({ text: q.text, values: q.values ?? [] });
  }
  return original.apply(this, args);
};

async function median(label: string, fn: () => Promise<unknown>) {
  const xs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  console.log(`${label}: p50 ${round(percentile(xs, 50))} ms, p95 ${round(percentile(xs, 95))} ms`);
}

async function main() {
  const stack = await startBenchStack({ label: 'bench-inbox-profile', config: buildTestConfig({ rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 } } as never) });
  const { runtime, baseUrl, db } = stack;
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Bench inbox' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const agent = await runtime.services.agents.createAgent({ accountId: account.id, livemode: false, config: { name: 'Bench inbox', channels: ['chat'] } });
    await loadInboxData(db, { accountId: account.id, agentId: agent.id, conversations: Number(process.env.BENCH_CONVERSATIONS ?? 10_000), handedOff: 1_000, messages: Number(process.env.BENCH_MESSAGES ?? 200_000) });
    const teammate = await signInToConsole(baseUrl, secret);
    const scope = { accountId: account.id, livemode: false };
    const who = { reader: 'key', userId: null };
    const s = runtime.services;
    await teammate.get('/console/inbox');
    await median('GET /console/inbox', () => teammate.get('/console/inbox'));
    await median('GET /console/inbox?tab=queue', () => teammate.get('/console/inbox?tab=queue'));
    await median('agents', () => s.agents.listAgents({ ...scope, page: { limit: 100 } }));
    await median('listInbox all', () => s.inbox.listInbox({ ...scope, who, tab: 'all', test: false }));
    await median('listInbox queue', () => s.inbox.listInbox({ ...scope, who, tab: 'queue', test: false }));
    await median('counts', () => s.inbox.counts({ ...scope, who }));
    // The counts as they were read before conversations_tab_counts (one join over every conversation), and
    // as they are now, alternately (so the machine's load drifts over both alike).
    const oldCounts = () => sql`select
        count(*) filter (where not c.test) as "all",
        count(*) filter (where not c.test and (c.status = 'handed_off' or c.id = any(array(select r.conversation_id from run_tool_calls t join runs r on r.id = t.run_id
          where t.status = 'awaiting_approval' and r.account_id = ${scope.accountId} and r.livemode = false)))) as queue,
        count(*) filter (where not c.test and c.status <> 'closed' and c.assignee_user_id = '') as mine,
        count(*) filter (where not c.test and c.status = 'active') as active,
        count(*) filter (where not c.test and c.status = 'closed') as closed,
        count(*) filter (where not c.test and c.status <> 'closed' and c.unread_at is not null and (r.read_at is null or r.read_at < c.unread_at)) as unread,
        count(*) filter (where c.test) as test
      from conversations c left join conversation_reads r on r.conversation_id = c.id and r.reader = 'key'
      where c.account_id = ${scope.accountId} and c.livemode = false`.execute(db);
    const before: number[] = [];
    const now: number[] = [];
    for (let i = 0; i < SAMPLES * 5; i++) {
      let t = performance.now();
      await oldCounts();
      before.push(performance.now() - t);
      t = performance.now();
      await s.inbox.counts({ ...scope, who });
      now.push(performance.now() - t);
    }
    const q = (xs: number[], p: number) => round(percentile([...xs].sort((a, b) => a - b), p));
    console.log(`counts, alternating ${before.length} times: before p50 ${q(before, 50)} ms p95 ${q(before, 95)} ms; now p50 ${q(now, 50)} ms p95 ${q(now, 95)} ms`);
    capturing = true;
    await teammate.get('/console/inbox');
    capturing = false;
    console.log(`${captured.length} statements`);
    for (const q of captured) {
      if (!/^\s*(with|select)/i.test(q.text)) continue;
      const plan = await sql.raw(`explain (analyze, buffers) ${q.text.replace(/\$(\d+)/g, (_, n: string) => lit(q.values[Number(n) - 1]))}`).execute(db);
      const lines = (plan.rows as Record<string, string>[]).map((r) => Object.values(r)[0]!);
      const ms = Number(/Execution Time: ([\d.]+)/.exec(lines.at(-1) ?? '')?.[1] ?? 0);
      console.log(`\n--- ${ms} ms: ${q.text.replace(/\s+/g, ' ').slice(0, 200)}`);
      if (ms > 1 || process.env.BENCH_PLANS === 'all') for (const l of lines) console.log(l);
    }
  } finally {
    await stack.close();
  }
}

function lit(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return `'${v.toISOString()}'`;
  if (Array.isArray(v)) return `array[${v.map(lit).join(',')}]::text[]`;
  return `'${String(v).replace(/'/g, "''")}'`;
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
