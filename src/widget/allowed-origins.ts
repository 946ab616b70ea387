import { AppError } from '../domain/errors';

/** Most origins one publishable key may list (a site's few hosts; a longer list is a mistake or an attack). */
export const MAX_ALLOWED_ORIGINS = 50;
const MAX_ORIGIN_LENGTH = 255;
const HOSTNAME = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Checks a key's allowed origins: each exactly a browser's serialized origin, `scheme://host[:port]`
 * (http or https; no path, query, fragment, user, wildcard or trailing slash; lower-case, ASCII host;
 * no default port), at most MAX_ALLOWED_ORIGINS, no duplicates. A live key's origins are https, except
 * loopback (a developer's machine). The WHATWG URL parser (Node's) does the parsing; the rule is that
 * its serialization of the origin equals the input, so what is stored is what browsers send.
 */
export function validateAllowedOrigins(origins: string[], mode: 'test' | 'live'): string[] {
  if (origins.length === 0) throw invalid('allowed_origins needs at least one origin (the site that embeds the widget)');
  if (origins.length > MAX_ALLOWED_ORIGINS) throw invalid(`allowed_origins holds at most ${MAX_ALLOWED_ORIGINS} origins`);
  const seen = new Set<string>();
  origins.forEach((origin, i) => {
    const param = `allowed_origins.${i}`;
    if (origin.length > MAX_ORIGIN_LENGTH) throw invalid(`Invalid ${param}: longer than ${MAX_ORIGIN_LENGTH} characters`, param);
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw invalid(`Invalid ${param}: '${origin}' is not an origin (expected scheme://host[:port])`, param);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`Invalid ${param}: the scheme must be https or http`, param);
    if (!HOSTNAME.test(url.hostname)) throw invalid(`Invalid ${param}: '${url.hostname}' is not a host name (no wildcards)`, param);
    if (url.origin !== origin) {
      throw invalid(`Invalid ${param}: '${origin}' is not exactly an origin (no path, query, trailing slash, credentials or default port); did you mean '${url.origin}'?`, param);
    }
    if (mode === 'live' && url.protocol !== 'https:' && !LOOPBACK.has(url.hostname)) throw invalid(`Invalid ${param}: a live key's origins use https`, param);
    if (seen.has(origin)) throw invalid(`Invalid ${param}: '${origin}' is listed twice`, param);
    seen.add(origin);
  });
  return origins;
}

/** A list the document allows (1 to MAX_ALLOWED_ORIGINS strings) whose values break the origin rule: 422. */
const invalid = (message: string, param = 'allowed_origins') => new AppError('parameter_unprocessable', message, { param });
