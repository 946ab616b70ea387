import type { Router } from 'express';
import { z } from 'zod';
import type { AgentsService } from '../agents/agents.service';
import { AppError } from '../domain/errors';
import { scopeOf } from '../domain/principal';
import type { PublishableKeysService } from '../widget/publishable-keys.service';
import type { VisitorIdentityService } from '../widget/visitor-identity.service';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { secretOnce } from './views/settings.view';
import { websitePage } from './views/widget.view';

const KeyFormSchema = z.object({ name: z.string().trim().max(100).optional(), allowed_origins: z.string().max(20_000).default(''), _csrf: z.string().optional() });
const IdentityFormSchema = z.object({ required: z.string().optional(), _csrf: z.string().optional() });
const SecretFormSchema = z.object({ expire_others: z.enum(['', '0', '3600', '86400']).default(''), _csrf: z.string().optional() });

interface ConsoleWidgetServices { agents: AgentsService; publishableKeys: PublishableKeysService; visitorIdentity: VisitorIdentityService }

/** An agent's website chat: publishable keys (list, create, revoke), visitor identity secrets and requirement. */
export function registerConsoleWidgetRoutes(router: Router, { services }: ConsoleDeps<ConsoleWidgetServices>) {
  async function render(res: Parameters<typeof sendPage>[0], agentId: string, opts: { shownOnce?: ReturnType<typeof secretOnce>; error?: string; origins?: string; status?: number; notice?: string } = {}) {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const agent = await services.agents.getAgent({ ...scope, agentId });
    const [keys, secrets, settings] = await Promise.all([
      services.publishableKeys.listKeys({ ...scope, agentId }),
      services.visitorIdentity.listIdentitySecrets({ ...scope, agentId }),
      services.visitorIdentity.getWidgetSettings({ ...scope, agentId }),
    ]);
    sendPage(res, {
      title: `${agent.name}: website chat`, active: 'agents', status: opts.status, notice: opts.notice,
      body: websitePage({ agent, keys: keys.data, secrets: secrets.data, settings, mode: session.mode, csrf: session.csrfToken, shownOnce: opts.shownOnce, error: opts.error, origins: opts.origins }),
    });
  }

  router.get('/agents/:id/website', page(async (req, res) => render(res, idOf(req))));

  router.post('/agents/:id/website/keys', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = KeyFormSchema.parse(req.body);
    const origins = body.allowed_origins.split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
    try {
      await services.publishableKeys.createKey({ ...scopeOf(session), agentId: idOf(req), allowedOrigins: origins, name: body.name || undefined });
    } catch (err) {
      if (err instanceof AppError && err.code === 'parameter_invalid') return render(res, idOf(req), { error: err.message, origins: body.allowed_origins, status: 422 });
      throw err;
    }
    res.redirect(303, `/console/agents/${idOf(req)}/website`);
  }));

  router.post('/agents/:id/website/keys/:key/revoke', page(async (req, res) => {
    const { session } = sessionOf(res);
    const key = await services.publishableKeys.getKey({ ...scopeOf(session), keyId: idOf(req, 'key') });
    // Only a key of this agent, from this agent's page.
    if (key.agent_id !== idOf(req)) throw new AppError('resource_missing', `No such publishable key: '${key.id}'`);
    await services.publishableKeys.revokeKey({ ...scopeOf(session), keyId: key.id });
    res.redirect(303, `/console/agents/${idOf(req)}/website`);
  }));

  router.post('/agents/:id/website/identity', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = IdentityFormSchema.parse(req.body);
    await services.visitorIdentity.updateWidgetSettings({ ...scopeOf(session), agentId: idOf(req), identity: body.required ? 'required' : 'optional' });
    res.redirect(303, `/console/agents/${idOf(req)}/website`);
  }));

  router.post('/agents/:id/website/identity_secrets', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = SecretFormSchema.parse(req.body);
    const created = await services.visitorIdentity.createIdentitySecret({
      ...scopeOf(session), agentId: idOf(req), expireOthersInSeconds: body.expire_others === '' ? undefined : Number(body.expire_others),
    });
    await render(res, idOf(req), { shownOnce: secretOnce(`Identity secret ${created.id} (the kid of your JWTs).`, created.secret!) });
  }));

  router.post('/agents/:id/website/identity_secrets/:secret/remove', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.visitorIdentity.deleteIdentitySecret({ ...scopeOf(session), agentId: idOf(req), secretId: idOf(req, 'secret') });
    res.redirect(303, `/console/agents/${idOf(req)}/website`);
  }));
}
