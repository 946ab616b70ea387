import type { Request } from 'express';

/**
 * The origin this service is reached at by the request's browser, as the request states it (scheme as
 * Express reads it, honouring `trust proxy`; Host). The console's widget preview lets its test key allow
 * this origin, and visitorAccess takes a same-origin request's origin to be it: one function, so both agree.
 */
export function serviceOriginOf(req: Request): string | undefined {
  const host = req.get('host');
  if (!host) return undefined;
  try {
    return new URL(`${req.protocol}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/**
 * A request's Origin: the header, or for a same-origin request a browser sent without one (a GET, an
 * EventSource: browsers add Origin only to cross-origin requests and to other methods), the service's own
 * origin. `Sec-Fetch-Site` is set by the browser and cannot be set by a page's script, so a page on another
 * site never passes for this one; a client outside a browser can claim any origin either way.
 */
export function requestOriginOf(req: Request): string | undefined {
  const origin = req.header('Origin');
  if (origin !== undefined) return origin;
  return req.header('Sec-Fetch-Site') === 'same-origin' ? serviceOriginOf(req) : undefined;
}
