import type { Request, RequestHandler } from 'express';
import { AppError } from '../../domain/errors';

/** Buckets kept before full (idle) ones are dropped; bounds memory under many distinct keys or addresses. */
const MAX_BUCKETS = 100_000;

/**
 * Token buckets by key (rate per second, burst of twice that), in this process's memory: with N API
 * processes the effective limit is N times the setting (see docs/decisions/api-rate-limits-and-key-cache.md).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();
  private readonly capacity: number;

  constructor(private readonly opts: { perSecond: number; now?: () => number; maxBuckets?: number }) {
    this.capacity = opts.perSecond * 2;
  }

  /** Spends one token of `key`'s bucket; when none is left, the whole seconds until one is. */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const t = (this.opts.now ?? Date.now)();
    const b = this.buckets.get(key) ?? { tokens: this.capacity, updated: t };
    b.tokens = Math.min(this.capacity, b.tokens + ((t - b.updated) / 1000) * this.opts.perSecond);
    b.updated = t;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= (this.opts.maxBuckets ?? MAX_BUCKETS)) this.prune(t);
      this.buckets.set(key, b);
    }
    if (b.tokens < 1) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.opts.perSecond)) };
    b.tokens -= 1;
    return { ok: true };
  }

  /** Drops buckets that have refilled (forgetting them changes nothing), else the least recently used half. */
  private prune(t: number) {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((t - b.updated) / 1000) * this.opts.perSecond >= this.capacity) this.buckets.delete(k);
    }
    if (this.buckets.size >= (this.opts.maxBuckets ?? MAX_BUCKETS) / 2) {
      const oldest = [...this.buckets].sort((a, b) => a[1].updated - b[1].updated);
      for (const [k] of oldest.slice(0, Math.ceil(oldest.length / 2))) this.buckets.delete(k);
    }
  }

  get size() {
    return this.buckets.size;
  }
}

export const rateLimited = (retryAfterSeconds: number) =>
  new AppError('rate_limited', 'Too many requests: slow down and retry after the Retry-After delay', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/** Per-API-key limit, for authenticated requests. */
export function rateLimit(opts: { perSecond: number; now?: () => number }): RequestHandler {
  const buckets = new TokenBuckets(opts);
  return (req, res, next) => {
    const key = req.principal?.keyId;
    if (!key) return next();
    const taken = buckets.take(key);
    if (!taken.ok) {
      res.setHeader('Retry-After', String(taken.retryAfterSeconds));
      return next(rateLimited(taken.retryAfterSeconds));
    }
    next();
  };
}

/**
 * Per-client-address limit for requests that are not authenticated: no Authorization header (public
 * routes, probes, docs) or a key that fails. `charge` answers the 429 to send, if the address is over.
 * The address is `req.ip`, which honours the `trust proxy` setting (TRUST_PROXY).
 */
export function clientAddressLimit(opts: { perSecond: number; now?: () => number }) {
  const buckets = new TokenBuckets(opts);
  const charge = (req: Request): AppError | undefined => {
    const taken = buckets.take(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    return taken.ok ? undefined : rateLimited(taken.retryAfterSeconds);
  };
  /** Charges every request that carries no credentials; the authenticator charges failed ones. */
  const anonymous: RequestHandler = (req, _res, next) => next(req.headers.authorization ? undefined : charge(req));
  return { charge, anonymous, buckets };
}
