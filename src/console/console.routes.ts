import path from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { ZodError } from 'zod';
import { AppError } from '../domain/errors';
import { idOf, page, refuseCrossSite, SESSION_COOKIE, sendPage, sessionOf, setSessionCookie, type ConsoleDeps, type ConsoleLocals, type ConsolePageRoutes } from './console-page';
import type { ConsoleSessionsService } from './console-sessions.service';
import type { AccountsService } from '../accounts/accounts.service';
import type { AgentsService } from '../agents/agents.service';
import { errorPage, notFoundPage } from './views/error.view';
import { signInPage } from './views/sign-in.view';
import { scopeOf } from '../domain/principal';
import { requireConsoleRole } from './console-roles';

export { SESSION_COOKIE };

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

const sameToken = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const ASSETS = path.join(__dirname, 'assets');

/** The services the console's frame uses (sign-in, session, the account's name, the agents' menu). */
interface ConsoleFrameServices { consoleSessions: ConsoleSessionsService; accounts: AccountsService; agents: AgentsService }

/**
 * The support team's console under /console: server-rendered pages over the same services the API uses.
 * Sessions are a random token in an HttpOnly, SameSite=Lax cookie (Secure over https), opened only by a
 * sign-in (secret key, console user, or a one-time link `npm start` prints); every POST carries the
 * session's CSRF token (form field `_csrf` or header `X-CSRF-Token`) and, when the browser sends one, an
 * Origin of this host (the sign-in form too: no login CSRF). The page areas' routes (`pages`, listed in the
 * app's route list) are added behind the session, before the console's 404 and error pages.
 */
export function mountConsole<S extends ConsoleFrameServices>(app: Express, deps: ConsoleDeps<S>, pages: readonly ConsolePageRoutes<S>[], publicPages: readonly ConsolePageRoutes<S>[] = []): void {
  const { services } = deps;
  const router = express.Router();

  // Framing, sniffing and referrer headers: set for every response by the app (http/middleware/security-headers.ts).
  router.use('/assets', express.static(ASSETS, { maxAge: '1h', fallthrough: false }));
  router.use(express.urlencoded({ extended: false, limit: '2mb', parameterLimit: 5000 }));
  router.use(express.json({ limit: '2mb' }));

  router.get('/sign-in', (_req, res) => {
    res.type('html').send(signInPage({}));
  });
  router.post('/sign-in', page(async (req, res) => {
    const body = req.body as Record<string, string | undefined>;
    try {
      refuseCrossSite(req, { allowNull: false });
    } catch {
      res.status(403).type('html').send(signInPage({ error: 'Sign in from this console\'s own sign-in page.' }));
      return;
    }
    try {
      const { token, session } = body.secret_key
        ? await services.consoleSessions.signInWithKey({ secret: body.secret_key })
        : await services.consoleSessions.signInWithPassword({ email: body.email ?? '', password: body.password ?? '' });
      setSessionCookie(req, res, token, session.expiresAt);
      res.redirect(303, '/console');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      res.status(401).type('html').send(signInPage({ error: 'That did not work: check the email and password, or the secret key.', email: body.email }));
    }
  }));

  // The one-time link `npm start` prints: signs this browser in with the development account's test key, once.
  router.get('/sign-in/:token', page(async (req, res) => {
    const opened = await services.consoleSessions.signInWithLink({ token: idOf(req, 'token') });
    if (!opened) {
      res.status(410).type('html').send(signInPage({ error: 'That sign-in link was used already or has expired: restart npm start for a new one, or sign in with the test key.' }));
      return;
    }
    setSessionCookie(req, res, opened.token, opened.session.expiresAt);
    res.redirect(303, '/console');
  }));

  // Pages a person opens before they have a session (an invite's link).
  for (const register of publicPages) register(router, deps);

  // Everything below needs a session (no request opens one by itself).
  router.use((req, res, next) => void (async () => {
    const token = readCookie(req, SESSION_COOKIE);
    const session = token ? await services.consoleSessions.getSession({ token }) : undefined;
    if (!session) {
      if (req.method === 'GET' && !req.path.endsWith('.json') && !req.path.endsWith('/events')) return res.redirect(303, '/console/sign-in');
      throw new AppError('api_key_invalid', 'Sign in to the console first');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const sent = (req.body as Record<string, unknown> | undefined)?._csrf ?? req.header('x-csrf-token');
      if (typeof sent !== 'string' || !sameToken(sent, session.csrfToken)) throw new AppError('permission_denied', 'The form expired or did not come from the console: reload the page and try again');
      refuseCrossSite(req, { allowNull: true });
    }
    const account = await services.accounts.getAccount({ accountId: session.accountId });
    Object.assign(res.locals, { session, accountName: account.name } satisfies ConsoleLocals);
    return undefined;
  })().then(() => {
    if (!res.headersSent) next();
  }, next));
  // Every route below: the session's role against the one table (console-roles.ts).
  router.use(requireConsoleRole);

  router.post('/sign-out', page(async (req, res) => {
    const token = readCookie(req, SESSION_COOKIE);
    if (token) await services.consoleSessions.signOut({ token });
    res.clearCookie(SESSION_COOKIE, { path: '/console' });
    res.redirect(303, '/console/sign-in');
  }));

  // The first stop, the account's home page (GET /console/), is the analytics area's (console-analytics.routes.ts).
  for (const register of pages) register(router, deps);

  router.use((req: Request, res: Response) => {
    sendPage(res, { title: 'Not found', status: 404, body: notFoundPage(req.originalUrl) });
  });
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    void next;
    // A form that fails its schema is the sender's mistake (400), not the console's.
    const known = err instanceof AppError ? err : err instanceof ZodError ? new AppError('parameter_invalid', err.issues[0]?.message ?? 'Invalid form') : undefined;
    if (!known) deps.log.error({ err, path: req.path }, 'Console request failed');
    // The status comes from the service's one error table (domain/errors.ts), as for the API.
    const e = known ?? new AppError('internal_error', 'Something went wrong');
    const { status, message } = e;
    for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
    if (req.accepts(['html', 'json']) === 'json' || req.is('application/json') || !res.locals.session) {
      res.status(status).json({ error: { code: e.code, message, param: e.param } });
      return;
    }
    sendPage(res, { title: 'Error', status, body: errorPage(status, message) });
  });

  app.use('/console', router);
}
