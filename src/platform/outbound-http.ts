import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { AppError } from '../domain/errors';
import { SIGNATURE_HEADER, signatureHeader, type SigningSecrets } from '../domain/signature';

/**
 * Every request the service makes to a caller-owned URL (webhooks, status callbacks, tool endpoints,
 * url/api knowledge sources) goes through here, so the same rules hold everywhere: https in live mode,
 * and no private, loopback or link-local addresses unless ALLOW_PRIVATE_NETWORK is on. The address is
 * checked at connect time too (a DNS answer that changes after validation cannot reach inside).
 */
export interface OutboundPolicy {
  allowPrivate: boolean;
  /** Live-mode objects must use https; test mode may use http. */
  requireHttps: boolean;
}

const privateRanges = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ['192.0.2.0', 24], ['192.88.99.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24],
] as const) privateRanges.addSubnet(net, prefix, 'ipv4');
// IPv6 forms that reach IPv4 space or a private network: the IPv4-compatible (::a.b.c.d, including :: and
// ::1), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48), 6to4
// (2002::/16) and Teredo (2001::/32) prefixes are refused outright, with site-local (fec0::/10),
// unique-local, link-local, multicast, discard and documentation ranges. IPv4-mapped (::ffff:a.b.c.d)
// addresses are checked against the IPv4 list (BlockList does that for both spellings).
for (const [net, prefix] of [
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) {
  privateRanges.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return privateRanges.check(mapped[1]!, 'ipv4');
  return privateRanges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Validates a caller-supplied URL at write time; throws 400/422 AppErrors naming `param`. */
export function assertOutboundUrl(raw: string, policy: OutboundPolicy, param = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    const shaped = /^https?:\/\//i.test(raw); // matches the published pattern, yet no URL parser takes it
    throw new AppError(shaped ? 'parameter_unprocessable' : 'parameter_invalid', `Invalid ${param}: not an absolute URL`, { param });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AppError('parameter_invalid', `Invalid ${param}: only http(s) URLs are supported`, { param });
  }
  if (url.protocol === 'http:' && policy.requireHttps) {
    throw new AppError('url_not_allowed', `The ${param} must use https for live-mode objects`, { param });
  }
  if (url.username || url.password) {
    throw new AppError('parameter_invalid', `Invalid ${param}: credentials in URLs are not accepted`, { param });
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host))) {
    throw new AppError('url_not_allowed', `The ${param} points at a private or loopback address`, { param });
  }
  return url;
}

export class OutboundNetworkError extends Error {
  override readonly name = 'OutboundNetworkError';
  constructor(
    message: string,
    readonly kind: 'timeout' | 'blocked' | 'network',
  ) {
    super(message);
  }
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  latencyMs: number;
}

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Cap on the response body kept (bytes); the rest is drained and dropped. */
  maxBodyBytes?: number;
  /**
   * Send again, once, on a new connection when a pooled keep-alive connection turns out closed (reset
   * or hung up before any answer: the receiver closed it while idle, as its keep-alive timeout allows).
   * For requests that may be repeated (webhook deliveries carry Webhook-Id for receivers to deduplicate).
   */
  retryStaleConnection?: boolean;
}

const keepAliveHttp = new http.Agent({ keepAlive: true, maxSockets: 64 });
const keepAliveHttps = new https.Agent({ keepAlive: true, maxSockets: 64 });

function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: any, callback: any) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const list = addresses ?? [];
      const bad = !allowPrivate && list.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(new OutboundNetworkError(`${hostname} resolves to a private address`, 'blocked'));
      if (options?.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(new OutboundNetworkError(`${hostname} did not resolve`, 'network'));
      callback(null, first.address, first.family);
    });
  };
}

/** One HTTP request with a hard deadline. Non-2xx statuses are returned, not thrown. */
export function sendOutbound(req: OutboundRequest): Promise<OutboundResponse> {
  return sendOnce(req, performance.now(), true);
}

/** Error codes of a pooled connection the other side closed before answering (reset, hang-up, broken pipe). */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE']);

function sendOnce(req: OutboundRequest, started: number, pooled: boolean): Promise<OutboundResponse> {
  const url = new URL(req.url);
  const isHttps = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!req.allowPrivate && isPrivateAddress(host)) {
    return Promise.reject(new OutboundNetworkError(`${host} is a private address`, 'blocked'));
  }
  const maxBody = req.maxBodyBytes ?? 1_000_000;
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = (isHttps ? https : http).request(
      url,
      {
        method: req.method ?? 'POST',
        headers: { 'user-agent': 'converse/0.1', ...req.headers },
        // agent false: a connection of its own (the retry after a stale pooled one).
        agent: pooled ? (isHttps ? keepAliveHttps : keepAliveHttp) : false,
        lookup: guardedLookup(req.allowPrivate) as any,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < maxBody) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).subarray(0, maxBody).toString('utf8'),
            latencyMs: Math.round(performance.now() - started),
          });
        });
        res.on('error', (e) => {
          clearTimeout(timer);
          reject(new OutboundNetworkError(e.message, 'network'));
        });
      },
    );
    const timer = setTimeout(() => {
      r.destroy(new OutboundNetworkError(`no answer within ${req.timeoutMs} ms`, 'timeout'));
    }, Math.max(1, req.timeoutMs - (performance.now() - started)));
    r.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (pooled && req.retryStaleConnection && r.reusedSocket && !answered && STALE_CONNECTION_CODES.has(e.code ?? '')) {
        sendOnce(req, started, false).then(resolve, reject);
        return;
      }
      reject(e instanceof OutboundNetworkError ? e : new OutboundNetworkError(e.message, 'network'));
    });
    if (req.body !== undefined) r.end(req.body);
    else r.end();
  });
}

/**
 * A JSON POST signed with `Service-Signature` over the exact body sent: webhook deliveries, status
 * callbacks, tool calls and api knowledge sources all use it.
 */
export function postSignedJson(req: {
  url: string;
  /** One secret, or the current and previous ones during a rotation (one v1 entry each). */
  secret: SigningSecrets;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  headers?: Record<string, string>;
  maxBodyBytes?: number;
  retryStaleConnection?: boolean;
}): Promise<OutboundResponse> {
  return sendOutbound({
    url: req.url,
    method: 'POST',
    body: req.body,
    timeoutMs: req.timeoutMs,
    allowPrivate: req.allowPrivate,
    maxBodyBytes: req.maxBodyBytes,
    retryStaleConnection: req.retryStaleConnection,
    headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signatureHeader(req.secret, req.body), ...req.headers },
  });
}
