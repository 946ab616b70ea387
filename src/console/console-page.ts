import type { Request, RequestHandler, Response, Router } from 'express';
import { AppError } from '../domain/errors';
import type { Config } from '../config/env';
import type { Principal } from '../domain/principal';
import type { Actor } from '../domain/roles';
import type { Logger } from '../observability/logger';
import type { ConsoleSession } from './console-sessions.service';
import type { Html } from '../platform/html';
import { layout, type NavSection } from './views/layout';

/**
 * What every console page route shares: its dependencies, the signed-in session, route parameters, the
 * page frame and the async handler wrapper. Route files import this module, never each other (only the
 * app's route list imports a routes file).
 */

/**
 * What a console route needs: config, log and the services it uses (the same the API uses), named by the
 * routes module itself in `S` (`ConsoleDeps<{ agents: AgentsService }>`); the app hands over its container.
 */
export interface ConsoleDeps<S> {
  services: S;
  config: Config;
  log: Logger;
}

/** One console page area's routes (agents, knowledge, inbox, settings), added to the signed-in router. */
export type ConsolePageRoutes<S> = (router: Router, deps: ConsoleDeps<S>) => void;

/** A signed-in request: the session and the account's name for the page frame. */
export interface ConsoleLocals {
  session: ConsoleSession;
  accountName: string;
}

/** A route parameter (Express 5 types allow arrays for wildcards). */
export const idOf = (req: Request, name = 'id') => String(req.params[name]);

export const sessionOf = (res: Response) => res.locals as ConsoleLocals;

/** Renders a page inside the console frame for the signed-in account. */
export function sendPage(res: Response, input: { title: string; active?: NavSection; body: Html; notice?: string; error?: string; status?: number }) {
  const { session, accountName } = sessionOf(res);
  res
    .status(input.status ?? 200)
    .type('html')
    .send(layout({ ...input, session: { accountName, mode: session.mode, csrfToken: session.csrfToken, role: session.role, displayName: session.displayName } }));
}

/** An async handler whose errors reach the console's error page. */
export const page = (fn: (req: Request, res: Response) => Promise<unknown>): RequestHandler => (req, res, next) => {
  fn(req, res).catch(next);
};

/** The signed-in session as the principal services take for writes (the key id is `console`). */
export const principalOf = (res: Response): Principal => {
  const { session } = sessionOf(res);
  return { accountId: session.accountId, keyId: 'console', mode: session.mode, role: session.role };
};

/**
 * Who the signed-in session acts as, for what a person does (a human reply, an approval): the teammate
 * with their display name, or the key a key sign-in used ("Support team").
 */
export const actorOf = (res: Response): Actor => {
  const { session } = sessionOf(res);
  return session.userId !== null
    ? { type: 'teammate', id: session.userId, name: session.displayName }
    : { type: 'api_key', id: session.keyId ?? 'console', name: 'Support team' };
};

/** The console session's cookie. */
export const SESSION_COOKIE = 'converse_console';

export function setSessionCookie(req: Request, res: Response, token: string, expires: Date) {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/console', expires });
}

/** The host an Origin header names, or undefined when it is `null`, malformed or not http(s). */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Refuses a browser request sent from another site: an Origin naming another host (or a malformed one),
 * or `Sec-Fetch-Site: cross-site`. `null` origins are refused unless `allowNull` (a form behind the
 * session's CSRF token). A request with neither header (curl, a script) passes.
 */
export function refuseCrossSite(req: Request, opts: { allowNull: boolean }) {
  const origin = req.header('origin');
  const refused = () => new AppError('permission_denied', 'Cross-site request refused');
  if (req.header('sec-fetch-site') === 'cross-site') throw refused();
  if (origin === undefined || (origin === 'null' && opts.allowNull)) return;
  if (originHost(origin) !== req.headers.host) throw refused();
}

