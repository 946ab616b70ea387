import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

export interface ToolRequest {
  headers: http.IncomingHttpHeaders;
  body: { tool: string; arguments: Record<string, unknown>; conversation_id: string; run_id: string };
  raw: string;
}

export type ToolHandler = (req: ToolRequest, res: http.ServerResponse) => void | Promise<void>;

/** A caller's tool endpoint on loopback: records every request, answers with `handler` (200 {ok:true} by default). */
export async function startToolServer(handler?: ToolHandler) {
  const requests: ToolRequest[] = [];
  let current = handler;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const request = { headers: req.headers, body: JSON.parse(raw || '{}'), raw };
      requests.push(request);
      if (current) return void (await current(request, res));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    handle(h: ToolHandler) {
      current = h;
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

type ToolServer = Awaited<ReturnType<typeof startToolServer>>;

/** A tool server for the whole test file: started before its tests, closed after them. */
export function useToolServer() {
  let server: ToolServer | undefined;
  before(async () => {
    server = await startToolServer();
  });
  after(async () => server?.close());
  const started = () => {
    if (!server) throw new Error('the tool server starts in the file’s before hook');
    return server;
  };
  return {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    handle: (h: ToolHandler) => started().handle(h),
  };
}

/** The order-lookup tool the agent tests share, calling `server`'s /orders; `extra` adds or overrides fields. */
export const lookupOrderTool = (server: { url: string }, extra: Record<string, unknown> = {}) => ({
  name: 'lookup_order',
  description: 'Look up the status of an order by its order number',
  parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['order_id'] },
  endpoint: `${server.url}/orders`,
  ...extra,
});

export const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
