/**
 * npm run bench:conversation-stream — replies streamed token by token to GET /v1/conversations/{id}/events,
 * on the stack as `npm start` runs it (Temporal dev server, API and worker in one process, the PostgreSQL
 * server at DATABASE_URL) with the openai planner pointed at a loopback OpenAI-compatible server that
 * streams 20 tokens at a fixed rate (TOKEN_INTERVAL_MS), with a secret key. For QUESTIONS questions, one at a
 * time, each in a conversation of its own with its stream open: first_token_overhead, per_token_overhead,
 * full_reply (see measureStreamedReplies). Then STREAMS conversation streams are held open at once:
 * concurrent_streams and stream_memory_mb over idle (see measureOpenStreams). Prints one JSON line.
 * bench:widget measures the same through the website widget's path (publishable key, visitor token).
 */
import { buildTestConfig } from '../test/support/config';
import { apiClient } from '../test/support/http';
import { openEventStream } from '../test/support/sse';
import { machineInfo, startBenchStack } from './support';
import { ASKED, benchAgent, measureOpenStreams, measureStreamedReplies, startTimedProvider } from './reply-stream-support';

const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 100);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);

async function main() {
  const { provider, sentAt } = await startTimedProvider();
  const config = buildTestConfig({
    rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 },
    planner: { provider: 'openai', baseUrl: `${provider.baseUrl}/v1`, model: 'bench', timeoutMs: 30_000 },
  } as never);
  const stack = await startBenchStack({ label: 'bench-conversation-stream', config });
  const { runtime, baseUrl } = stack;
  let figures: Record<string, unknown> = {};
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Bench' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const agent = await benchAgent(runtime.services, account.id);
    const call = apiClient(baseUrl, secret);

    const replies = await measureStreamedReplies({
      count: QUESTIONS,
      sentAt,
      ask: async (i) => {
        const cnv = (await call('POST', '/v1/conversations', { agent_id: agent.id })).body.id as string;
        const stream = await openEventStream(`${baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${secret}` });
        const posted = performance.now();
        const res = await call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: ASKED[i % ASKED.length] });
        if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
        return { stream, posted, done: Promise.resolve() };
      },
    });

    const conversations: string[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const c = await runtime.services.conversations.createConversation({ accountId: account.id, livemode: false, agent_id: agent.id });
      conversations.push(c.id);
    }
    const streams = await measureOpenStreams({
      baseUrl, conversations, headers: { Authorization: `Bearer ${secret}` }, serverStreams: () => runtime.services.conversationEvents.openStreams,
    });
    figures = { ...replies, ...streams };
  } finally {
    await stack.close();
    await provider.stop();
  }
  console.log(JSON.stringify({ bench: 'conversation-stream', ...figures, machine: machineInfo() }));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
