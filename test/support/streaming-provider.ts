import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A model provider on loopback that streams as OpenAI's chat completions (`chat.completion.chunk` events,
 * then `[DONE]`) or Anthropic's Messages API (`content_block_delta` events) do. Each request is answered
 * by `handle`, which writes events through the helpers; tests and benchmarks script it.
 */
export class StreamingProvider {
  readonly requests: any[] = [];
  handle: (body: any, send: EventWriter) => Promise<void> = async (_b, send) => send.openAiText(['(no script)']);
  baseUrl = '';
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      this.requests.push(body);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      const writer = new EventWriter(res);
      this.handle(body, writer)
        .catch(() => undefined)
        .finally(() => res.end());
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export class EventWriter {
  constructor(private readonly res: http.ServerResponse) {}

  /** Bytes as they are (comment lines, broken framing). */
  bytes(text: string): void {
    this.res.write(text);
  }

  /** One server-sent event (`event:` only for Anthropic's typed events). */
  raw(data: unknown, event?: string): void {
    this.res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }

  openAiChunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
    this.raw({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra });
  }

  openAiDone(usage = { prompt_tokens: 12, completion_tokens: 20 }): void {
    this.raw({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage });
    this.raw('[DONE]');
  }

  /** A whole streamed text reply, one chunk per piece (no waiting between them). */
  async openAiText(pieces: string[]): Promise<void> {
    this.openAiChunk({ role: 'assistant', content: '' });
    for (const p of pieces) this.openAiChunk({ content: p });
    this.openAiDone();
  }

  anthropicStart(): void {
    this.raw({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 30, output_tokens: 1 } } }, 'message_start');
  }

  anthropicText(index: number, text: string): void {
    this.raw({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, 'content_block_delta');
  }

  anthropicBlock(index: number, block: Record<string, unknown>): void {
    this.raw({ type: 'content_block_start', index, content_block: block }, 'content_block_start');
  }

  anthropicStop(outputTokens = 20): void {
    this.raw({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: outputTokens } }, 'message_delta');
    this.raw({ type: 'message_stop' }, 'message_stop');
  }
}
