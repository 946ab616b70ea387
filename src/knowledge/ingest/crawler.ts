import robotsParser from 'robots-parser';
import { AppError } from '../../domain/errors';
import { OutboundNetworkError, sendOutbound } from '../../platform/outbound-http';
import { textToBlocks, type ParsedDocument } from './document';
import { extractHtml } from './html-extract';

export const CRAWLER_USER_AGENT = 'converse-knowledge/0.1';

export interface CrawlOptions {
  startUrl: string;
  maxPages: number;
  maxDepth: number;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Called after each page (activity heartbeat). */
  onPage?: (url: string, count: number) => void;
}

export interface CrawlResult {
  pages: ParsedDocument[];
  /** Urls seen but not fetched, with why (robots, scope, caps): reported, not indexed. */
  skipped: { url: string; reason: 'robots' | 'out_of_scope' | 'max_pages' | 'max_depth' | 'not_html' | 'error' }[];
}

/** The path prefix a crawl stays under: the start page's directory (or the path itself when it is one). */
export function scopePrefix(start: URL): string {
  const p = start.pathname;
  if (p.endsWith('/')) return p;
  const last = p.slice(p.lastIndexOf('/') + 1);
  return last.includes('.') ? p.slice(0, p.lastIndexOf('/') + 1) : `${p}/`;
}

export function inScope(start: URL, candidate: URL): boolean {
  if (candidate.protocol !== start.protocol || candidate.host !== start.host) return false;
  const prefix = scopePrefix(start);
  return candidate.pathname.startsWith(prefix) || `${candidate.pathname}/` === prefix;
}

async function fetchFollowing(url: string, opts: CrawlOptions, accept: (u: URL) => boolean) {
  let current = url;
  for (let hop = 0; hop < 5; hop++) {
    const res = await sendOutbound({
      url: current,
      method: 'GET',
      headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.8,*/*;q=0.1' },
      timeoutMs: opts.timeoutMs,
      allowPrivate: opts.allowPrivate,
      maxBodyBytes: 5_000_000,
    });
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, current);
      if (!accept(next)) return { ...res, url: current, redirectedOutOfScope: true };
      current = next.toString();
      continue;
    }
    return { ...res, url: current, redirectedOutOfScope: false };
  }
  throw new OutboundNetworkError('too many redirects', 'network');
}

/**
 * Breadth-first crawl from `startUrl`, staying on the same host and under the start page's path prefix,
 * honouring robots.txt (our user agent, else `*`), with caps on depth and page count. An unreachable or
 * disallowed start page is `source_unreachable`; a failing inner page is skipped.
 */
export async function crawlSite(opts: CrawlOptions): Promise<CrawlResult> {
  const start = new URL(opts.startUrl);
  start.hash = '';
  const robotsUrl = new URL('/robots.txt', start).toString();
  let robots: ReturnType<typeof robotsParser> | undefined;
  try {
    const r = await sendOutbound({ url: robotsUrl, method: 'GET', timeoutMs: opts.timeoutMs, allowPrivate: opts.allowPrivate, maxBodyBytes: 500_000 });
    if (r.status >= 200 && r.status < 300) robots = robotsParser(robotsUrl, r.body);
  } catch {
    // No robots.txt reachable: everything in scope is allowed (the start page fetch reports real outages).
  }
  const allowed = (u: string) => robots?.isAllowed(u, CRAWLER_USER_AGENT) !== false;

  const pages: ParsedDocument[] = [];
  const skipped: CrawlResult['skipped'] = [];
  const seen = new Set<string>([start.toString()]);
  const queue: { url: string; depth: number }[] = [{ url: start.toString(), depth: 0 }];

  if (!allowed(start.toString())) {
    throw new AppError('source_unreachable', `robots.txt at ${robotsUrl} disallows ${start.toString()}`, { param: 'url' });
  }
  while (queue.length) {
    const { url, depth } = queue.shift()!;
    if (pages.length >= opts.maxPages) {
      skipped.push({ url, reason: 'max_pages' });
      continue;
    }
    const isStart = url === start.toString();
    let res;
    try {
      res = await fetchFollowing(url, opts, (u) => (isStart ? u.host === start.host : inScope(start, u)));
    } catch (err) {
      if (isStart) throw new AppError('source_unreachable', `Could not fetch ${url}: ${(err as Error).message}`, { param: 'url' });
      skipped.push({ url, reason: 'error' });
      continue;
    }
    if (res.status < 200 || res.status >= 300) {
      if (isStart) throw new AppError('source_unreachable', `Fetching ${url} answered HTTP ${res.status}`, { param: 'url' });
      skipped.push({ url, reason: 'error' });
      continue;
    }
    const type = String(res.headers['content-type'] ?? '').toLowerCase();
    if (type.startsWith('text/plain')) {
      pages.push({ title: url, url, blocks: textToBlocks(res.body) });
      opts.onPage?.(url, pages.length);
      continue;
    }
    if (type && !type.includes('html')) {
      if (isStart) throw new AppError('source_unreachable', `${url} is not a web page (${type})`, { param: 'url' });
      skipped.push({ url, reason: 'not_html' });
      continue;
    }
    const page = extractHtml(res.body, res.url);
    pages.push({ title: page.title, url: res.url, blocks: page.blocks });
    opts.onPage?.(url, pages.length);
    for (const link of page.links) {
      if (seen.has(link)) continue;
      seen.add(link);
      const u = new URL(link);
      if (!inScope(start, u)) skipped.push({ url: link, reason: 'out_of_scope' });
      else if (!allowed(link)) skipped.push({ url: link, reason: 'robots' });
      else if (depth + 1 > opts.maxDepth) skipped.push({ url: link, reason: 'max_depth' });
      else queue.push({ url: link, depth: depth + 1 });
    }
  }
  return { pages, skipped };
}
