import type { Request, RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import type { AccountsService } from '../../accounts/accounts.service';

/**
 * Bearer API key → req.principal. Routes declared public skip the requirement (defineRoute checks). A
 * failed attempt is charged to the client address (`chargeFailure`), so guessing keys is rate limited.
 */
export function authenticate(accounts: AccountsService, opts: { chargeFailure?: (req: Request) => AppError | undefined } = {}): RequestHandler {
  return async (req, _res, next) => {
    const header = req.headers.authorization;
    if (!header) return next();
    try {
      const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
      if (!match) throw new AppError('api_key_invalid', 'Malformed Authorization header: expected "Bearer <API key>"');
      req.principal = await accounts.authenticate(match[1]!);
      next();
    } catch (err) {
      next(opts.chargeFailure?.(req) ?? err);
    }
  };
}
