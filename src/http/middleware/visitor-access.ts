import type { Request, RequestHandler, Response, Router } from 'express';
import { AppError } from '../../domain/errors';
import type { PublishableKeyGrant, VisitorPrincipal } from '../../domain/principal';
import { requestOriginOf } from '../request-origin';
import { isVisitorRoute, publishableKeyNotAllowed, visitorRouteKind } from '../route';
import { rateLimited, TokenBuckets } from './rate-limit';

/** What the widget area (PublishableKeysService) answers this middleware. */
export interface VisitorAuthenticator {
  authenticateKey(key: string): Promise<PublishableKeyGrant>;
  identifyVisitor(input: {
    grant: PublishableKeyGrant;
    visitorToken?: string;
    identityToken?: string;
    revoked: AbortSignal;
  }): Promise<VisitorPrincipal>;
  isOriginAllowed(origin: string): Promise<boolean>;
  watchRevocation(keyId: string): { signal: AbortSignal; release: () => void };
}

/** Request headers a widget sends (answered in a preflight). */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Visitor-Token, X-Visitor-Identity';
/** Response headers the widget may read. */
const EXPOSED_HEADERS = 'Request-Id, Retry-After, Idempotent-Replayed, Visitor-Token';
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const PUBLISHABLE = /^Bearer[ \t]+(pk_[^\s]*)[ \t]*$/i;

/**
 * Website visitors (publishable keys) on the /v1 router, before API-key authentication:
 * - a CORS preflight for a visitor route (declared `visitor: true`) from an origin some active key allows
 *   answers 204 with that origin; any other preflight answers 403 without CORS headers (the browser stops);
 * - a request with `Authorization: Bearer pk_…` must come from one of the key's allowed origins (403
 *   origin_not_allowed otherwise, also without an Origin), is rate limited per key and per visitor, may use
 *   only visitor routes (403 publishable_key_not_allowed), and becomes `req.visitor` (visitor token and
 *   identity JWT verified; a new or renewed token is sent back in `Visitor-Token`), or on a `visitor: 'key'`
 *   route `req.publishableKey` alone. A same-origin request without Origin counts as the service's own
 *   origin (requestOriginOf). Its answers carry `Access-Control-Allow-Origin: <origin>` and `Vary: Origin`,
 *   never credentials (the key is in a header, not a cookie).
 * A failed key is charged to the client address like a failed secret key (`chargeFailure`).
 */
export function visitorAccess(opts: {
  router: Router;
  visitors: VisitorAuthenticator;
  perKeyPerSecond: number;
  perVisitorPerSecond: number;
  chargeFailure?: (req: Request) => AppError | undefined;
  now?: () => number;
}): RequestHandler {
  const perKey = new TokenBuckets({ perSecond: opts.perKeyPerSecond, now: opts.now });
  const perVisitor = new TokenBuckets({ perSecond: opts.perVisitorPerSecond, now: opts.now });
  return async (req, res, next) => {
    try {
      const requested = req.header('Access-Control-Request-Method');
      const origin = req.header('Origin');
      if (req.method === 'OPTIONS' && origin !== undefined && requested !== undefined) {
        res.setHeader('Vary', 'Origin');
        const allowed = isVisitorRoute(opts.router, requested, req.path) && (await opts.visitors.isOriginAllowed(origin));
        if (!allowed) throw new AppError('origin_not_allowed', `No publishable key allows ${requested.slice(0, 10)} ${req.path.slice(0, 200)} from this origin`);
        allowOrigin(res, origin);
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
        res.status(204).end();
        return;
      }
      const match = PUBLISHABLE.exec(req.header('Authorization') ?? '');
      if (!match) return next();
      res.setHeader('Vary', 'Origin');
      let grant;
      try {
        grant = await opts.visitors.authenticateKey(match[1]!);
      } catch (err) {
        throw opts.chargeFailure?.(req) ?? err;
      }
      // A same-origin request (the console's widget preview) carries no Origin: it is the service's own.
      const from = requestOriginOf(req);
      if (from === undefined || !grant.allowedOrigins.includes(from)) {
        throw new AppError('origin_not_allowed', from === undefined
          ? 'A publishable key is used from a web page: the request has no Origin header'
          : `Origin ${from.slice(0, 255)} is not allowed for this publishable key (add it to the key's allowed_origins)`);
      }
      allowOrigin(res, from);
      const keyTaken = perKey.take(grant.keyId);
      if (!keyTaken.ok) throw rateLimited(keyTaken.retryAfterSeconds);
      const kind = visitorRouteKind(opts.router, req.method, req.path);
      if (!kind) throw publishableKeyNotAllowed();
      req.publishableKey = grant;
      // Per visitor: the token as sent (checked just below), or the address of a visitor without one yet.
      const visitorToken = req.header('X-Visitor-Token') || undefined;
      const visitorTaken = perVisitor.take(`${grant.keyId}:${visitorToken ?? `ip:${req.ip ?? 'unknown'}`}`);
      if (!visitorTaken.ok) throw rateLimited(visitorTaken.retryAfterSeconds);
      // The key alone (the widget's config): no visitor is read or made.
      if (kind === 'key') return next();
      const watch = opts.visitors.watchRevocation(grant.keyId);
      res.on('close', watch.release);
      const visitor = await opts.visitors.identifyVisitor({
        grant,
        visitorToken,
        identityToken: req.header('X-Visitor-Identity') || undefined,
        revoked: watch.signal,
      });
      req.visitor = visitor;
      // A new visitor's token, or a renewed one (sliding expiry): the widget keeps what this header says.
      if (visitor.visitorTokenRenewed) res.setHeader('Visitor-Token', visitor.visitorToken);
      next();
    } catch (err) {
      next(err);
    }
  };
}

function allowOrigin(res: Response, origin: string) {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}
