import type { Router } from 'express';
import { AppError } from '../domain/errors';
import { idOf, page, refuseCrossSite, setSessionCookie, type ConsoleDeps } from './console-page';
import type { ConsoleSessionsService } from './console-sessions.service';
import type { TeammatesService } from './teammates.service';
import { acceptInvitePage } from './views/team.view';

/** The services these console pages use. */
interface ConsoleInviteServices { teammates: TeammatesService; consoleSessions: ConsoleSessionsService }

const GONE = 'This invite link was used already, was revoked or has expired: ask a teammate for a new one.';

/**
 * An invite's link, opened before its person has a session: the accept page (display name and password),
 * and its form, which spends the invite, makes the console user and signs this browser in. The form is
 * refused from another site (as the sign-in form is).
 */
export function registerConsoleInviteRoutes(router: Router, { services }: ConsoleDeps<ConsoleInviteServices>) {
  router.get('/invites/:token', page(async (req, res) => {
    const token = idOf(req, 'token');
    const invite = await services.teammates.openInvite({ token });
    res.status(invite ? 200 : 410).type('html').send(acceptInvitePage({ token, invite, error: invite ? undefined : GONE }));
  }));

  router.post('/invites/:token', page(async (req, res) => {
    const token = idOf(req, 'token');
    const body = req.body as Record<string, unknown>;
    const displayName = typeof body.display_name === 'string' ? body.display_name : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const invite = await services.teammates.openInvite({ token });
    try {
      refuseCrossSite(req, { allowNull: false });
    } catch {
      res.status(403).type('html').send(acceptInvitePage({ token, invite, displayName, error: 'Accept the invite from its own page.' }));
      return;
    }
    if (!invite) {
      res.status(410).type('html').send(acceptInvitePage({ token, error: GONE }));
      return;
    }
    try {
      const user = await services.teammates.acceptInvite({ token, displayName, password });
      const { token: sessionToken, session } = await services.consoleSessions.signInWithPassword({ email: user.email, password });
      setSessionCookie(req, res, sessionToken, session.expiresAt);
      res.redirect(303, '/console/inbox');
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const still = await services.teammates.openInvite({ token });
      res.status(still ? 400 : 410).type('html').send(acceptInvitePage({ token, invite: still, displayName, error: err.message }));
    }
  }));
}
