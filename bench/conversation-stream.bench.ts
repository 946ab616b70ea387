/**
 * npm run bench:conversation-stream — replies streamed token by token to GET /v1/conversations/{id}/events,
 * on the stack as `npm start` runs it (Temporal dev server, API and worker in one process, the PostgreSQL
 * server at DATABASE_URL) with the openai planner pointed at a loopback OpenAI-compatible server that
 * streams 20 tokens at a fixed rate (TOKEN_INTERVAL_MS). For QUESTIONS questions, one at a time, each in a
 * conversation of its own with its stream open:
 * - first_token_overhead: from the provider writing its first content chunk to the first byte of the first
 *   reply.delta on the conversation stream;
 * - per_token_overhead: for each reply.delta, from the provider's latest chunk written before it arrived
 *   to its arrival (the time the service adds to a token it may send; redaction holds back the last few
 *   characters, which shows as fewer, not later, deltas);
 * - full_reply: from the POST to the agent's conversation.message on the stream.
 * Then STREAMS conversation streams are opened at once (raw sockets, so the clients weigh little) on as many
 * conversations, and the process's memory is compared with its idle memory before (both after a GC):
 * concurrent_streams (answered 200 and still open) and stream_memory_mb (the larger of the RSS and the JS
 * heap-plus-buffers growth; the raw clients live in this process too, so it is an upper bound). Prints one
 * JSON line.
 */
import net from 'node:net';
import { buildTestConfig } from '../test/support/config';
import { apiClient } from '../test/support/http';
import { openEventStream } from '../test/support/sse';
import { StreamingProvider } from '../test/support/streaming-provider';
import { ensureExampleAgent } from '../src/app/dev-examples';
import { silentLogger } from '../src/observability/logger';
import { machineInfo, percentile, round, startBenchStack } from './support';

const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 100);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const TOKENS = 20;
const TOKEN_INTERVAL_MS = Number(process.env.BENCH_TOKEN_INTERVAL_MS ?? 20);
const ASKED = ['How do I reset my password?', 'How do I track my order?', 'How do I return an item?', 'What does the warranty cover?', 'What are your opening hours?', 'Is shipping free?'];
/** 20 tokens of prose citing the first passage. */
const REPLY_TOKENS = ['You ', 'can ', 'find ', 'this ', 'in ', 'our ', 'help ', 'center ', 'article ', '[1]', '. ', 'It ', 'explains ', 'each ', 'step ', 'in ', 'plain ', 'words ', 'for ', 'you.'];

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = () => process.memoryUsage().rss / 2 ** 20;
/** Memory the JavaScript side holds (heap, buffers outside it). */
const jsMb = () => {
  const m = process.memoryUsage();
  return (m.heapUsed + m.external) / 2 ** 20;
};

async function main() {
  const provider = new StreamingProvider();
  await provider.start();
  /** When the provider wrote each chunk of the current answer (performance.now()). */
  let sentAt: number[] = [];
  provider.handle = async (_body, send) => {
    sentAt = [];
    send.openAiChunk({ role: 'assistant', content: '' });
    for (const token of REPLY_TOKENS.slice(0, TOKENS)) {
      await settle(TOKEN_INTERVAL_MS);
      send.openAiChunk({ content: token });
      sentAt.push(performance.now());
    }
    send.openAiDone();
    sentAt.push(performance.now());
  };
  const config = buildTestConfig({
    rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 },
    planner: { provider: 'openai', baseUrl: `${provider.baseUrl}/v1`, model: 'bench', timeoutMs: 30_000 },
  } as never);
  const stack = await startBenchStack({ label: 'bench-conversation-stream', config });
  const { runtime, baseUrl } = stack;
  const firstOverhead: number[] = [];
  const tokenOverhead: number[] = [];
  const fullReply: number[] = [];
  const outcomes = { replies: 0, deltas_equal_reply: 0, retracted: 0 };
  let figures: Record<string, unknown> = {};
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Bench' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const example = await ensureExampleAgent({ services: runtime.services, accountId: account.id, log: silentLogger() });
    // The example's knowledge, answered without a confidence floor: every question ends in a reply.
    const agent = await runtime.services.agents.createAgent({
      accountId: account.id, livemode: false,
      config: { name: 'Bench streaming', channels: ['chat'], knowledge_bases: [{ id: example.knowledgeBaseId }], retrieval_required: false, guardrails: { confidence_floor: 0 }, handoff: { default_queue: 'support', on_low_confidence: false } },
    });
    await runtime.services.agents.publishAgent({ accountId: account.id, livemode: false, agentId: agent.id });
    const call = apiClient(baseUrl, secret);

    for (let i = 0; i < QUESTIONS + 3; i++) {
      const cnv = (await call('POST', '/v1/conversations', { agent_id: agent.id })).body.id as string;
      const stream = await openEventStream(`${baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${secret}` });
      const posted = performance.now();
      const res = await call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: ASKED[i % ASKED.length] });
      if (res.status !== 201) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
      const deltas: { text: string; at: number }[] = [];
      let retracted = false;
      let reply: string | undefined;
      let replyAt = 0;
      for (let e = await stream.next(30_000); e; e = await stream.next(30_000)) {
        const at = stream.arrivals[stream.arrivals.length - 1]!;
        if (e.event === 'reply.delta') deltas.push({ text: e.data.text, at });
        if (e.event === 'reply.retracted') retracted = true;
        if (e.event === 'conversation.message' && e.data.role === 'agent') {
          reply = e.data.content;
          replyAt = at;
          break;
        }
        if (e.event === 'conversation.handoff') break;
      }
      stream.close();
      if (i < 3) continue; // warm-up
      if (retracted) outcomes.retracted++;
      if (reply === undefined || deltas.length === 0) continue;
      outcomes.replies++;
      if (deltas.map((d) => d.text).join('') === reply) outcomes.deltas_equal_reply++;
      firstOverhead.push(deltas[0]!.at - sentAt[0]!);
      for (const d of deltas) {
        const trigger = sentAt.filter((t) => t <= d.at).at(-1);
        if (trigger !== undefined) tokenOverhead.push(d.at - trigger);
      }
      fullReply.push(replyAt - posted);
    }

    // Open streams, memory over idle.
    const conversations: string[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const c = await runtime.services.conversations.createConversation({ accountId: account.id, livemode: false, agent_id: agent.id });
      conversations.push(c.id);
    }
    for (let i = 0; i < 3; i++) {
      gc();
      await settle(700);
    }
    const idle = rssMb();
    const idleJs = jsMb();
    const { port } = new URL(baseUrl);
    const sockets = await Promise.all(
      conversations.map(
        (id) =>
          new Promise<{ socket: net.Socket; ok: boolean }>((resolve) => {
            const socket = net.connect(Number(port), '127.0.0.1', () => {
              socket.write(`GET /v1/conversations/${id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\nAccept: text/event-stream\r\n\r\n`);
            });
            let head = '';
            const onData = (b: Buffer) => {
              head += b.toString('latin1');
              if (head.includes('\r\n\r\n')) {
                socket.off('data', onData);
                socket.on('data', () => undefined);
                resolve({ socket, ok: head.startsWith('HTTP/1.1 200') });
              }
            };
            socket.on('data', onData);
            socket.on('error', () => resolve({ socket, ok: false }));
          }),
      ),
    );
    await settle(1000);
    gc();
    await settle(500);
    const open = sockets.filter((s) => s.ok && !s.socket.destroyed).length;
    const withStreams = rssMb();
    const withStreamsJs = jsMb();
    const serverStreams = runtime.services.conversationEvents.openStreams;
    for (const s of sockets) s.socket.destroy();

    figures = {
      questions: fullReply.length,
      tokens_per_reply: TOKENS,
      token_interval_ms: TOKEN_INTERVAL_MS,
      first_token_overhead_p50_ms: round(percentile([...firstOverhead].sort((a, b) => a - b), 50)),
      first_token_overhead_p95_ms: round(percentile([...firstOverhead].sort((a, b) => a - b), 95)),
      per_token_overhead_p50_ms: round(percentile([...tokenOverhead].sort((a, b) => a - b), 50)),
      per_token_overhead_p95_ms: round(percentile([...tokenOverhead].sort((a, b) => a - b), 95)),
      full_reply_p50_ms: round(percentile([...fullReply].sort((a, b) => a - b), 50)),
      full_reply_p95_ms: round(percentile([...fullReply].sort((a, b) => a - b), 95)),
      ...outcomes,
      concurrent_streams: Math.min(open, serverStreams),
      // The larger of the two measures: RSS (what the OS sees; noisy, it keeps freed pages) and the JS heap plus buffers.
      stream_memory_mb: round(Math.max(withStreams - idle, withStreamsJs - idleJs)),
      stream_rss_mb: round(withStreams - idle),
      stream_js_heap_mb: round(withStreamsJs - idleJs),
      idle_rss_mb: round(idle),
      gc_exposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    };
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
