/**
 * npm run bench:widget — the website widget's HTTP path: what widget.js does for a question, with a
 * publishable key from an allowed origin and the visitor token its first conversation got. On the stack as
 * `npm start` runs it, with the openai planner pointed at a loopback OpenAI-compatible server streaming 20
 * tokens TOKEN_INTERVAL_MS apart. For QUESTIONS questions, one at a time, each in a conversation of its
 * own: POST /v1/conversations, GET …/events, and POST …/messages?wait_ms=0 beside the stream (as the widget
 * does: the answer's citations come with its message on the stream): first_token_overhead, per_token_overhead, full_reply (see
 * measureStreamedReplies). Then STREAMS of the visitor's conversation streams are held open at once:
 * concurrent_streams and stream_memory_mb over idle (see measureOpenStreams). widget_gzip_bytes: the size of
 * GET /widget.js as a browser that accepts gzip receives it. Prints one JSON line.
 */
import { buildTestConfig } from '../test/support/config';
import { openEventStream } from '../test/support/sse';
import { visitorClient } from '../test/support/widget';
import { machineInfo, startBenchStack } from './support';
import { ASKED, benchAgent, measureOpenStreams, measureStreamedReplies, startTimedProvider } from './reply-stream-support';

const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 100);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const ORIGIN = 'https://shop.example';

async function main() {
  const { provider, sentAt } = await startTimedProvider();
  const config = buildTestConfig({
    rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 },
    visitorRateLimit: { perKeyPerSecond: 100_000, perVisitorPerSecond: 100_000 },
    planner: { provider: 'openai', baseUrl: `${provider.baseUrl}/v1`, model: 'bench', timeoutMs: 30_000 },
  } as never);
  const stack = await startBenchStack({ label: 'bench-widget', config });
  const { runtime, baseUrl } = stack;
  let figures: Record<string, unknown> = {};
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Bench' });
    const agent = await benchAgent(runtime.services, account.id);
    const key = await runtime.services.publishableKeys.createKey({ accountId: account.id, livemode: false, agentId: agent.id, allowedOrigins: [ORIGIN] });
    const script = await fetch(`${baseUrl}/widget.js`, { headers: { 'accept-encoding': 'gzip' } });
    const widgetGzipBytes = script.headers.get('content-encoding') === 'gzip' ? Number(script.headers.get('content-length')) : NaN;
    await script.arrayBuffer();

    // The visitor's first conversation gives the token every later call carries.
    const first = await visitorClient(baseUrl, { key: key.key!, origin: ORIGIN })('POST', '/v1/conversations', { agent_id: agent.id });
    if (first.status !== 201) throw new Error(`open: ${first.status} ${JSON.stringify(first.body)}`);
    const token = first.body.visitor_token as string;
    const visitor = visitorClient(baseUrl, { key: key.key!, origin: ORIGIN, token });
    const headers = { Authorization: `Bearer ${key.key}`, Origin: ORIGIN, 'X-Visitor-Token': token };

    const replies = await measureStreamedReplies({
      count: QUESTIONS,
      sentAt,
      ask: async (i) => {
        const cnv = (await visitor('POST', '/v1/conversations', { agent_id: agent.id })).body.id as string;
        const stream = await openEventStream(`${baseUrl}/v1/conversations/${cnv}/events`, headers);
        if (stream.status !== 200) throw new Error(`stream: ${stream.status} ${JSON.stringify(stream.body)}`);
        const posted = performance.now();
        const done = visitor('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: ASKED[i % ASKED.length] }).then((res) => {
          if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
        });
        return { stream, posted, done };
      },
    });

    const conversations: string[] = [];
    for (let i = 0; i < STREAMS; i++) conversations.push((await visitor('POST', '/v1/conversations', { agent_id: agent.id })).body.id as string);
    const streams = await measureOpenStreams({ baseUrl, conversations, headers, serverStreams: () => runtime.services.conversationEvents.openStreams });
    figures = { ...replies, widget_gzip_bytes: widgetGzipBytes, ...streams };
  } finally {
    await stack.close();
    await provider.stop();
  }
  console.log(JSON.stringify({ bench: 'widget', ...figures, machine: machineInfo() }));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
