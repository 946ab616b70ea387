import type { Response, Router } from 'express';
import { z } from 'zod';
import { AppError } from '../domain/errors';
import { ROLES, roleAtLeast } from '../domain/roles';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { TeammatesService, TeamActor } from './teammates.service';
import { teamPage } from './views/team.view';

const InviteSchema = z.object({ email: z.string().trim().min(3, 'Enter the teammate\'s email address').max(320), role: z.enum(ROLES) });
const RoleSchema = z.object({ role: z.enum(ROLES) });

/** The services these console pages use. */
interface ConsoleTeamServices { teammates: TeammatesService }

/**
 * The Team page (/console/team): teammates with their roles, open invites, the invite form (the new link
 * shown once to copy); change a role, disable, enable, remove. Every POST here needs admin (console-roles.ts);
 * TeammatesService decides the finer rules (never above your own role, owners only by owners, the last owner stays).
 */
export function registerConsoleTeamRoutes(router: Router, { services }: ConsoleDeps<ConsoleTeamServices>) {
  const actorOf = (res: Response): TeamActor => {
    const { session } = sessionOf(res);
    return { role: session.role, userId: session.userId };
  };

  async function renderTeam(res: Response, extra: { link?: { url: string; email: string; emailed: boolean; sandbox?: boolean }; error?: string; notice?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const team = await services.teammates.listTeam({ accountId: session.accountId });
    sendPage(res, {
      title: 'Team',
      active: 'team',
      error: extra.error,
      notice: extra.notice,
      status: extra.status,
      body: teamPage({ ...team, grantable: ROLES.filter((r) => roleAtLeast(session.role, r)), csrf: session.csrfToken, me: session.userId, link: extra.link }),
    });
  }

  /** Runs a change; a refusal the person can act on (the last owner, a role too high, a taken email) shows the page again with its message. */
  async function orShowError(res: Response, fn: () => Promise<unknown>, done = '/console/team') {
    try {
      await fn();
      res.redirect(303, done);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500 || err.code === 'resource_missing') throw err;
      await renderTeam(res, { error: err.message, status: err.status });
    }
  }

  const NOTICES = new Map([['role', 'Role changed.'], ['disabled', 'Disabled: their sessions have ended.'], ['enabled', 'Enabled: they can sign in again.'], ['removed', 'Removed: their sessions have ended.'], ['revoked', 'Invite revoked.']]);

  router.get('/team', page(async (req, res) => renderTeam(res, { notice: NOTICES.get(String(req.query.done)) })));

  router.post('/team/invites', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = InviteSchema.parse(req.body);
    try {
      // A test key's console is a sandbox: its invites are never emailed (a test key reaches no real relay).
      const sandbox = session.keyId !== null && session.mode === 'test';
      const invite = await services.teammates.invite({ accountId: session.accountId, actor: actorOf(res), email: body.email, role: body.role, sandbox });
      await renderTeam(res, { link: { url: invite.url, email: body.email, emailed: invite.emailed, sandbox } });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      await renderTeam(res, { error: err.message, status: err.status });
    }
  }));

  router.post('/team/invites/:id/revoke', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.teammates.revokeInvite({ accountId: session.accountId, actor: actorOf(res), inviteId: idOf(req) });
    res.redirect(303, '/console/team?done=revoked');
  }));

  router.post('/team/:id/role', page(async (req, res) => {
    const { session } = sessionOf(res);
    const { role } = RoleSchema.parse(req.body);
    await orShowError(res, () => services.teammates.changeRole({ accountId: session.accountId, actor: actorOf(res), userId: idOf(req), role }), '/console/team?done=role');
  }));

  for (const [action, disabled] of [['disable', true], ['enable', false]] as const) {
    router.post(`/team/:id/${action}`, page(async (req, res) => {
      const { session } = sessionOf(res);
      await orShowError(res, () => services.teammates.setDisabled({ accountId: session.accountId, actor: actorOf(res), userId: idOf(req), disabled }), `/console/team?done=${disabled ? 'disabled' : 'enabled'}`);
    }));
  }

  router.post('/team/:id/remove', page(async (req, res) => {
    const { session } = sessionOf(res);
    await orShowError(res, () => services.teammates.remove({ accountId: session.accountId, actor: actorOf(res), userId: idOf(req) }), '/console/team?done=removed');
  }));
}
