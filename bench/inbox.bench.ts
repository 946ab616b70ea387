/**
 * npm run bench:inbox — the support team's inbox on a big account, on the stack as `npm start` runs it
 * (Temporal dev server, API and worker in one process, the PostgreSQL server at DATABASE_URL):
 * CONVERSATIONS conversations (HANDED_OFF of them handed off, waiting since random times) with MESSAGES
 * messages in one account, written with SQL in one transaction (triggers off, the inbox columns then set
 * with one UPDATE each; ANALYZE), then, through the console as a teammate's browser asks for it:
 * - inbox_first_page_p95_ms: GET /console/inbox (the whole page: 50 rows, counts per tab);
 * - handoff_queue_p95_ms: GET /console/inbox?tab=queue (oldest waiting first, approvals included);
 * - search_p95_ms: GET /console/inbox?q=… (full-text over the transcripts, words of the data);
 * - new_message_to_console_p95_ms: a customer message POSTed through the API to a handed-off conversation
 *   until the open inbox stream (GET /console/inbox/events) delivers its row;
 * - notice_to_customer_p95_ms: a customer message that makes the agent hand off, POSTed through the API,
 *   until the conversation's stream (GET /v1/conversations/{id}/events) carries the handoff notice.
 * Prints one JSON line (with the load average beside the figures).
 */
import os from 'node:os';
import { buildTestConfig } from '../test/support/config';
import { loadInboxData, WORDS } from './inbox-data';
import { apiClient } from '../test/support/http';
import { openEventStream } from '../test/support/sse';
import { signInToConsole } from '../test/support/console';
import { machineInfo, percentile, round, startBenchStack } from './support';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 10_000);
const HANDED_OFF = Number(process.env.BENCH_HANDED_OFF ?? 1_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const NOTICES = Number(process.env.BENCH_NOTICES ?? 15);

const p95 = (xs: number[]) => round(percentile([...xs].sort((a, b) => a - b), 95));

async function timed(times: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

async function main() {
  const config = buildTestConfig({ rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 } } as never);
  const stack = await startBenchStack({ label: 'bench-inbox', config });
  const { runtime, baseUrl, db } = stack;
  let figures: Record<string, unknown> = {};
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Bench inbox' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const agent = await runtime.services.agents.createAgent({
      accountId: account.id, livemode: false,
      config: { name: 'Bench inbox', channels: ['chat'], guardrails: { restricted_topics: ['refund'], restricted_topic_action: 'handoff' } },
    });
    await runtime.services.agents.publishAgent({ accountId: account.id, livemode: false, agentId: agent.id });
    const call = apiClient(baseUrl, secret);

    // The data: one transaction, triggers off (session_replication_role), then the inbox columns in bulk.
    const loadStart = performance.now();
    const perConversation = await loadInboxData(db, { accountId: account.id, agentId: agent.id, conversations: CONVERSATIONS, handedOff: HANDED_OFF, messages: MESSAGES });
    const loadMs = performance.now() - loadStart;

    const teammate = await signInToConsole(baseUrl, secret);
    const page = async (path: string) => {
      const res = await teammate.get(path);
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    };
    await page('/console/inbox'); // warm-up
    const firstPage = await timed(SAMPLES, () => page('/console/inbox'));
    const queue = await timed(SAMPLES, () => page('/console/inbox?tab=queue'));
    const search = await timed(SAMPLES, (i) => page(`/console/inbox?q=${encodeURIComponent(`${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]!.slice(0, 4)}`)}`));

    // A customer message to a handed-off conversation until the open inbox stream has its row.
    const stream = await openEventStream(`${baseUrl}/console/inbox/events?tab=queue&since=${encodeURIComponent(new Date().toISOString())}`, { cookie: teammate.cookie });
    const toConsole: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const id = `cnv_bench${String(i * 7).padStart(6, '0')}`;
      const t = performance.now();
      const res = await call('POST', `/v1/conversations/${id}/messages`, { role: 'customer', content: `Still waiting on my parcel (${i})` });
      if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
      for (;;) {
        const e = await stream.next(10_000);
        if (!e) throw new Error('the inbox stream ended');
        if (e.event === 'inbox.conversation' && e.data.id === id) break;
      }
      toConsole.push(performance.now() - t);
    }
    stream.close();

    // A message the agent hands off on, until the conversation's stream carries the notice to the customer.
    const notice: number[] = [];
    for (let i = 0; i < NOTICES + 2; i++) {
      const cnv = (await call('POST', '/v1/conversations', { agent_id: agent.id })).body.id as string;
      const events = await openEventStream(`${baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${secret}` });
      const t = performance.now();
      const res = await call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: 'I want a refund for my order' });
      if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
      for (;;) {
        const e = await events.next(30_000);
        if (!e) throw new Error('the conversation stream ended');
        if (e.event === 'conversation.message' && e.data.role === 'system') break;
      }
      events.close();
      if (i >= 2) notice.push(performance.now() - t);
    }

    figures = {
      bench: 'inbox',
      conversations: CONVERSATIONS,
      handed_off: HANDED_OFF,
      messages: perConversation * CONVERSATIONS,
      load_seconds: round(loadMs / 1000),
      inbox_first_page_p95_ms: p95(firstPage),
      inbox_first_page_p50_ms: round(percentile([...firstPage].sort((a, b) => a - b), 50)),
      handoff_queue_p95_ms: p95(queue),
      search_p95_ms: p95(search),
      new_message_to_console_p95_ms: p95(toConsole),
      notice_to_customer_p95_ms: p95(notice),
      samples: SAMPLES,
      notices: NOTICES,
      load_average: os.loadavg().map((l) => round(l, 2)),
      machine: machineInfo(),
    };
  } finally {
    await stack.close();
  }
  console.log(JSON.stringify(figures));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
