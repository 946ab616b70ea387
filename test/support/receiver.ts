import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAt: number;
}

/**
 * A local HTTP endpoint (webhook receiver, tool, status callback) that records every request and answers
 * with what `respond` returns (default 200 `{}`).
 */
export async function startReceiver(
  respond: (req: ReceivedRequest, index: number) => { status: number; body?: unknown; delayMs?: number } | Promise<{ status: number; body?: unknown; delayMs?: number }> = () => ({ status: 200 }),
) {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      const index = requests.push(r) - 1;
      for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
      const answer = await respond(r, index);
      if (answer.delayMs) await new Promise((x) => setTimeout(x, answer.delayMs));
      if (res.destroyed) return;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    /** The receiver goes down: open connections are cut and new ones refused until `up()`. */
    down: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
    /** Listens again on the same port. */
    up: () => new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', () => { server.off('error', reject); resolve(); }); }),
    /** Resolves once `count` requests have arrived. */
    waitFor(count: number, timeoutMs = 20_000): Promise<void> {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`receiver got ${requests.length}/${count} requests`)), timeoutMs);
        waiters.push({ count, resolve: () => { clearTimeout(t); resolve(); } });
      });
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
