/**
 * The parts bench:conversation-stream and bench:widget share: a loopback OpenAI-compatible provider that
 * streams 20 tokens at a fixed rate (recording when it wrote each), the per-question measures read off a
 * conversation stream, and the open-streams memory measure over the service's idle memory.
 */
import net from 'node:net';
import type { openEventStream } from '../test/support/sse';
import { StreamingProvider } from '../test/support/streaming-provider';
import { ensureExampleAgent } from '../src/app/dev-examples';
import { silentLogger } from '../src/observability/logger';
import { percentile, round } from './support';

export const TOKENS = 20;
export const TOKEN_INTERVAL_MS = Number(process.env.BENCH_TOKEN_INTERVAL_MS ?? 20);
export const ASKED = ['How do I reset my password?', 'How do I track my order?', 'How do I return an item?', 'What does the warranty cover?', 'What are your opening hours?', 'Is shipping free?'];
/** 20 tokens of prose citing the first passage. */
const REPLY_TOKENS = ['You ', 'can ', 'find ', 'this ', 'in ', 'our ', 'help ', 'center ', 'article ', '[1]', '. ', 'It ', 'explains ', 'each ', 'step ', 'in ', 'plain ', 'words ', 'for ', 'you.'];

const gc = () => (globalThis as { gc?: () => void }).gc?.();
export const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = () => process.memoryUsage().rss / 2 ** 20;
/** Memory the JavaScript side holds (heap, buffers outside it). */
const jsMb = () => {
  const m = process.memoryUsage();
  return (m.heapUsed + m.external) / 2 ** 20;
};

/** The provider, answering every request with the 20 tokens TOKEN_INTERVAL_MS apart; `sentAt()` is when it wrote each chunk of the current answer. */
export async function startTimedProvider() {
  const provider = new StreamingProvider();
  await provider.start();
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
  return { provider, sentAt: () => sentAt };
}

type EventStream = Awaited<ReturnType<typeof openEventStream>>;

/**
 * Asks `count` questions (after 3 warm-up ones), each through `ask(i)`, which opens the conversation's stream
 * and posts the question (answering when it posted, and a promise of the post's end); reads the stream to the
 * agent's message and measures:
 * - first_token_overhead: from the provider writing its first content chunk to the first byte of the first
 *   reply.delta on the conversation stream;
 * - per_token_overhead: for each reply.delta, from the provider's latest chunk written before it arrived to
 *   its arrival (redaction holds back the last few characters, which shows as fewer, not later, deltas);
 * - full_reply: from the POST to the agent's conversation.message on the stream.
 */
export async function measureStreamedReplies(opts: {
  count: number;
  sentAt: () => number[];
  ask: (i: number) => Promise<{ stream: EventStream; posted: number; done: Promise<void> }>;
}) {
  const firstOverhead: number[] = [];
  const tokenOverhead: number[] = [];
  const fullReply: number[] = [];
  const outcomes = { replies: 0, deltas_equal_reply: 0, retracted: 0 };
  for (let i = 0; i < opts.count + 3; i++) {
    const { stream, posted, done } = await opts.ask(i);
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
    await done;
    if (i < 3) continue; // warm-up
    if (retracted) outcomes.retracted++;
    if (reply === undefined || deltas.length === 0) continue;
    outcomes.replies++;
    if (deltas.map((d) => d.text).join('') === reply) outcomes.deltas_equal_reply++;
    const sentAt = opts.sentAt();
    firstOverhead.push(deltas[0]!.at - sentAt[0]!);
    for (const d of deltas) {
      const trigger = sentAt.filter((t) => t <= d.at).at(-1);
      if (trigger !== undefined) tokenOverhead.push(d.at - trigger);
    }
    fullReply.push(replyAt - posted);
  }
  const p = (xs: number[], q: number) => round(percentile([...xs].sort((a, b) => a - b), q));
  return {
    questions: fullReply.length,
    tokens_per_reply: TOKENS,
    token_interval_ms: TOKEN_INTERVAL_MS,
    first_token_overhead_p50_ms: p(firstOverhead, 50),
    first_token_overhead_p95_ms: p(firstOverhead, 95),
    per_token_overhead_p50_ms: p(tokenOverhead, 50),
    per_token_overhead_p95_ms: p(tokenOverhead, 95),
    full_reply_p50_ms: p(fullReply, 50),
    full_reply_p95_ms: p(fullReply, 95),
    ...outcomes,
  };
}

/**
 * Opens one conversation stream per entry of `conversations` at once (raw sockets sending `headers`, so the
 * clients weigh little) and compares the process's memory with its idle memory before (both after a GC):
 * concurrent_streams (answered 200 and still open, as the service counts them too) and stream_memory_mb
 * (the larger of the RSS and the JS heap-plus-buffers growth; the raw clients live in this process too, so
 * it is an upper bound).
 */
export async function measureOpenStreams(opts: { baseUrl: string; conversations: string[]; headers: Record<string, string>; serverStreams: () => number }) {
  for (let i = 0; i < 3; i++) {
    gc();
    await settle(700);
  }
  const idle = rssMb();
  const idleJs = jsMb();
  const { port } = new URL(opts.baseUrl);
  const head = Object.entries({ Host: '127.0.0.1', Accept: 'text/event-stream', ...opts.headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const sockets = await Promise.all(
    opts.conversations.map(
      (id) =>
        new Promise<{ socket: net.Socket; ok: boolean }>((resolve) => {
          const socket = net.connect(Number(port), '127.0.0.1', () => {
            socket.write(`GET /v1/conversations/${id}/events HTTP/1.1\r\n${head}\r\n`);
          });
          let answer = '';
          const onData = (b: Buffer) => {
            answer += b.toString('latin1');
            if (answer.includes('\r\n\r\n')) {
              socket.off('data', onData);
              socket.on('data', () => undefined);
              resolve({ socket, ok: answer.startsWith('HTTP/1.1 200') });
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
  const serverStreams = opts.serverStreams();
  for (const s of sockets) s.socket.destroy();
  return {
    concurrent_streams: Math.min(open, serverStreams),
    // The larger of the two measures: RSS (what the OS sees; noisy, it keeps freed pages) and the JS heap plus buffers.
    stream_memory_mb: round(Math.max(withStreams - idle, withStreamsJs - idleJs)),
    stream_rss_mb: round(withStreams - idle),
    stream_js_heap_mb: round(withStreamsJs - idleJs),
    idle_rss_mb: round(idle),
    gc_exposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
}

/** An agent over the example's knowledge, answered without a confidence floor: every question ends in a reply. */
export async function benchAgent(services: Parameters<typeof ensureExampleAgent>[0]['services'], accountId: string) {
  const example = await ensureExampleAgent({ services, accountId, log: silentLogger() });
  const agent = await services.agents.createAgent({
    accountId, livemode: false,
    config: { name: 'Bench streaming', channels: ['chat'], knowledge_bases: [{ id: example.knowledgeBaseId }], retrieval_required: false, guardrails: { confidence_floor: 0 }, handoff: { default_queue: 'support', on_low_confidence: false } },
  });
  await services.agents.publishAgent({ accountId, livemode: false, agentId: agent.id });
  return agent;
}

