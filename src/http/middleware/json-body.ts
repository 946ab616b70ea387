import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../../domain/errors';

/** Nesting deeper than this in a request body is refused (no API object comes close). */
export const MAX_BODY_DEPTH = 64;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be stored as given: NUL, or a lone UTF-16 surrogate (not Unicode text; UTF-8 cannot encode it). */
function unstorable(s: string): string | undefined {
  if (s.includes('\u0000')) return 'NUL (U+0000) characters';
  if (LONE_SURROGATE.test(s)) return 'lone UTF-16 surrogates (\\ud800–\\udfff without their pair)';
  return undefined;
}

/**
 * Where a JSON value breaks what Postgres and the service can hold: a string or key with a NUL character
 * (text and jsonb refuse U+0000) or a lone UTF-16 surrogate (`"\ud800"` parses but is not Unicode text:
 * a text column would store U+FFFD instead, jsonb refuses it), both 422, a rule the schema cannot state
 * for keys and values inside free-form objects; or nesting deeper than MAX_BODY_DEPTH (400). Iterative,
 * so depth cannot blow the stack.
 * Returns the error for the first offender, naming its parameter.
 */
export function checkJsonValue(root: unknown, location: 'body' | 'query'): AppError | undefined {
  // Each entry links to its parent, so a path is built only for the offender (a 10 MB body has many nodes).
  type Entry = { value: unknown; key: string | undefined; parent: Entry | undefined; depth: number };
  const pathOf = (e: Entry) => {
    const keys: string[] = [];
    for (let at: Entry | undefined = e; at && at.key !== undefined; at = at.parent) keys.push(at.key);
    return keys.reverse().join('.') || undefined;
  };
  const stack: Entry[] = [{ value: root, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length) {
    const entry = stack.pop()!;
    const { value } = entry;
    if (typeof value === 'string') {
      const bad = unstorable(value);
      if (!bad) continue;
      const param = pathOf(entry);
      return new AppError('parameter_unprocessable', `Invalid ${param ?? `request ${location}`}: strings may not contain ${bad}`, { param });
    }
    if (typeof value !== 'object' || value === null) continue;
    if (entry.depth >= MAX_BODY_DEPTH) {
      const param = pathOf(entry);
      return new AppError('parameter_invalid', `Invalid ${param}: the request ${location} is nested more than ${MAX_BODY_DEPTH} levels deep`, { param });
    }
    for (const k of Object.keys(value)) {
      const bad = unstorable(k);
      if (bad) return new AppError('parameter_unprocessable', `Invalid request ${location}: keys may not contain ${bad}`);
      stack.push({ value: (value as Record<string, unknown>)[k], key: k, parent: entry, depth: entry.depth + 1 });
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
 * The raw bytes are kept for idempotency hashing; NUL characters and lone surrogates are 422, deep nesting 400.
 */
export function jsonBody(opts: { limitBytes: number; largeLimitBytes: number; largeRoutes: string[] }): RequestHandler {
  const verify = (req: Request, _res: unknown, buf: Buffer) => {
    req.rawBody = buf;
  };
  const small = express.json({ limit: opts.limitBytes, verify });
  const large = express.json({ limit: opts.largeLimitBytes, verify });
  const patterns = opts.largeRoutes.map(pathPattern);
  return (req, res, next) => {
    if (!req.principal && !req.visitor && !req.publishableKey) return next();
    const parser = patterns.some((p) => p.test(req.path)) ? large : small;
    parser(req, res, (err?: unknown) => {
      if (err) return next(err);
      next(req.body === undefined ? undefined : checkJsonValue(req.body, 'body'));
    });
  };
}
