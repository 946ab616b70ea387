import type { RequestHandler } from 'express';
import { AppError } from '../../domain/errors';

/**
 * Per-API-key token bucket (rate per second, burst of twice that), kept in this process's memory:
 * with N API processes the effective limit is N times the setting (see docs/decisions.md).
 */
export function rateLimit(opts: { perSecond: number; now?: () => number }): RequestHandler {
  const now = opts.now ?? Date.now;
  const capacity = opts.perSecond * 2;
  const buckets = new Map<string, { tokens: number; updated: number }>();
  return (req, res, next) => {
    const key = req.principal?.keyId;
    if (!key) return next();
    const t = now();
    const b = buckets.get(key) ?? { tokens: capacity, updated: t };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.updated) / 1000) * opts.perSecond);
    b.updated = t;
    buckets.set(key, b);
    if (b.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / opts.perSecond));
      res.setHeader('Retry-After', String(retryAfter));
      return next(new AppError('rate_limited', 'Too many requests: slow down and retry after the Retry-After delay'));
    }
    b.tokens -= 1;
    next();
  };
}
