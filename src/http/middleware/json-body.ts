import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../../domain/errors';

/** Nesting deeper than this in a request body is refused (no API object comes close). */
export const MAX_BODY_DEPTH = 64;

/**
 * Where a JSON value breaks what Postgres and the service can hold: a string or key with a NUL character
 * (text and jsonb refuse U+0000; 422, a rule the schema cannot state for keys and values inside free-form
 * objects) or nesting deeper than MAX_BODY_DEPTH (400). Iterative, so depth cannot blow the stack.
 * Returns the error for the first offender, naming its parameter.
 */
export function checkJsonValue(root: unknown, location: 'body' | 'query'): AppError | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    const param = path.join('.') || undefined;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return new AppError('parameter_unprocessable', `Invalid ${param ?? `request ${location}`}: strings may not contain NUL (U+0000) characters`, { param });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (path.length >= MAX_BODY_DEPTH) {
      return new AppError('parameter_invalid', `Invalid ${param}: the request ${location} is nested more than ${MAX_BODY_DEPTH} levels deep`, { param });
    }
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return new AppError('parameter_unprocessable', `Invalid request ${location}: keys may not contain NUL (U+0000) characters`);
      stack.push({ value: v, path: [...path, k] });
    }
  }
  return undefined;
}

/** Refuses a request whose path or query string holds a NUL byte (`%00`) with 400, before any route. */
export const rejectNulInUrl: RequestHandler = (req, _res, next) => {
  if (/%00|\u0000/i.test(req.url)) return next(new AppError('parameter_invalid', 'The request URL may not contain NUL (%00) characters'));
  next();
};

const pathPattern = (template: string) => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`);

/**
 * JSON bodies, read only once the caller is authenticated (an anonymous request's body is never read) and
 * capped at `limitBytes`, or `largeLimitBytes` for the route templates in `largeRoutes` (bulk records).
 * The raw bytes are kept for idempotency hashing; NUL characters and deep nesting are 400.
 */
export function jsonBody(opts: { limitBytes: number; largeLimitBytes: number; largeRoutes: string[] }): RequestHandler {
  const verify = (req: Request, _res: unknown, buf: Buffer) => {
    req.rawBody = buf;
  };
  const small = express.json({ limit: opts.limitBytes, verify });
  const large = express.json({ limit: opts.largeLimitBytes, verify });
  const patterns = opts.largeRoutes.map(pathPattern);
  return (req, res, next) => {
    if (!req.principal) return next();
    const parser = patterns.some((p) => p.test(req.path)) ? large : small;
    parser(req, res, (err?: unknown) => {
      if (err) return next(err);
      next(req.body === undefined ? undefined : checkJsonValue(req.body, 'body'));
    });
  };
}
