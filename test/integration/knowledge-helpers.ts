import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';

/** Polls a source until it has `status` (and `extra` holds); fails after `timeoutMs`. */
export async function waitForSource(
  call: ApiClient,
  kb: string,
  src: string,
  status: 'ready' | 'failed' | 'indexing',
  extra: (s: any) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<any> {
  let last: any;
  return pollUntil(`source ${src} to reach ${status}`, async () => {
    last = (await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body;
    return last?.status === status && extra(last) && last;
  }, { timeoutMs, intervalMs: 100, detail: () => JSON.stringify(last) });
}

export interface SitePage {
  body: string;
  status?: number;
  type?: string;
  /** Awaited before answering (hold a response open). */
  before?: () => Promise<void>;
}

/** A small website on loopback whose pages can be changed while it runs; records every path fetched. */
export async function startSite(pages: Record<string, SitePage>) {
  const fetched: string[] = [];
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    fetched.push(path);
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    await page.before?.();
    if (res.destroyed) return;
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8' });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pages,
    fetched,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
