import type { Request, RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import type { Principal } from '../../domain/principal';

/** What authentication needs of the accounts area (AccountsService): a key's secret → its principal, or an AppError. */
export interface ApiKeyAuthenticator {
  authenticate(secret: string): Promise<Principal>;
  /** Notes the key's use (its last_used_at), off the request's path. */
  recordKeyUse(keyId: string): void;
}

/**
 * Bearer API key → req.principal. Routes declared public skip the requirement (defineRoute checks). A
 * failed attempt is charged to the client address (`chargeFailure`), so guessing keys is rate limited.
 */
export function authenticate(accounts: ApiKeyAuthenticator, opts: { chargeFailure?: (req: Request) => AppError | undefined } = {}): RequestHandler {
  return async (req, _res, next) => {
    const header = req.headers.authorization;
    // A publishable key's request was authenticated by visitorAccess (req.visitor, or req.publishableKey alone).
    if (!header || req.visitor || req.publishableKey) return next();
    try {
      const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
      if (!match) throw new AppError('api_key_invalid', 'Malformed Authorization header: expected "Bearer <API key>"');
      req.principal = await accounts.authenticate(match[1]!);
      accounts.recordKeyUse(req.principal.keyId);
      next();
    } catch (err) {
      next(opts.chargeFailure?.(req) ?? err);
    }
  };
}
