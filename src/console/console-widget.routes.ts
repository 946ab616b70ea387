import type { Router } from 'express';
import { z } from 'zod';
import type { AgentsService } from '../agents/agents.service';
import { AppError } from '../domain/errors';
import { scopeOf } from '../domain/principal';
import { serviceOriginOf } from '../http/request-origin';
import { parseInput } from '../http/route';
import type { PublishableKeysService } from '../widget/publishable-keys.service';
import type { VisitorIdentityService } from '../widget/visitor-identity.service';
import { AppearanceUpdateSchema } from '../widget/widget-appearance';
import type { WidgetSettingsService } from '../widget/widget-settings.service';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { secretOnce } from './views/settings.view';
import { previewPage } from './views/widget-install.view';
import { websitePage } from './views/widget.view';
import { widgetScriptIntegrity } from './widget-snippet';

const KeyFormSchema = z.object({ name: z.string().trim().max(100).optional(), allowed_origins: z.string().max(20_000).default(''), _csrf: z.string().optional() });
const IdentityFormSchema = z.object({ required: z.string().optional(), _csrf: z.string().optional() });
const SettingsFormSchema = z.object({
  theme_color: z.string().max(50).default(''),
  position: z.string().max(50).default(''),
  persistence: z.string().max(50).default(''),
  greeting: z.string().max(10_000).default(''),
  proactive: z.string().max(10).optional(),
  proactive_message: z.string().max(10_000).default(''),
  proactive_delay_seconds: z.string().max(50).default(''),
  proactive_paths: z.string().max(20_000).default(''),
  _csrf: z.string().optional(),
});
const SecretFormSchema = z.object({ expire_others: z.enum(['', '0', '3600', '86400']).default(''), _csrf: z.string().optional() });

interface ConsoleWidgetServices { agents: AgentsService; publishableKeys: PublishableKeysService; visitorIdentity: VisitorIdentityService; widgetSettings: WidgetSettingsService }

/**
 * An agent's website chat: how to install the widget (snippet, JWT examples, live preview), its appearance,
 * publishable keys (list, create, revoke), visitor identity secrets and requirement.
 */
export function registerConsoleWidgetRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleWidgetServices>) {
  async function render(res: Parameters<typeof sendPage>[0], agentId: string, opts: { shownOnce?: ReturnType<typeof secretOnce>; error?: string; origins?: string; status?: number; notice?: string; settingsError?: string } = {}) {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const agent = await services.agents.getAgent({ ...scope, agentId });
    const [keys, secrets, settings] = await Promise.all([
      services.publishableKeys.listKeys({ ...scope, agentId }),
      services.visitorIdentity.listIdentitySecrets({ ...scope, agentId }),
      services.widgetSettings.getWidgetSettings({ ...scope, agentId }),
    ]);
    sendPage(res, {
      title: `${agent.name}: website chat`, active: 'agents', status: opts.status, notice: opts.notice,
      body: websitePage({ agent, keys: keys.data, secrets: secrets.data, settings, mode: session.mode, csrf: session.csrfToken, shownOnce: opts.shownOnce, error: opts.error, origins: opts.origins,
        baseUrl: config.http.publicBaseUrl, integrity: widgetScriptIntegrity(), settingsError: opts.settingsError }),
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
    await services.widgetSettings.updateWidgetSettings({ ...scopeOf(session), agentId: idOf(req), identity: body.required ? 'required' : 'optional' });
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

  router.post('/agents/:id/website/settings', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = SettingsFormSchema.parse(req.body);
    const lines = (text: string) => text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    try {
      // The form's fields as the API's body, checked by the API's own schema (the same rules, the same messages).
      const update = parseInput(AppearanceUpdateSchema, {
        ...(form.theme_color ? { theme_color: form.theme_color } : {}),
        ...(form.position ? { position: form.position } : {}),
        ...(form.persistence ? { persistence: form.persistence } : {}),
        greeting: form.greeting.trim() === '' ? null : form.greeting,
        proactive: form.proactive
          ? { message: form.proactive_message, delay_seconds: form.proactive_delay_seconds.trim() === '' ? 0 : Number(form.proactive_delay_seconds), paths: lines(form.proactive_paths) }
          : null,
      }, 'body');
      await services.widgetSettings.updateWidgetSettings({ ...scopeOf(session), agentId: idOf(req), ...update });
    } catch (err) {
      if (err instanceof AppError && (err.code === 'parameter_invalid' || err.code === 'parameter_unprocessable' || err.code === 'parameter_unknown')) {
        return render(res, idOf(req), { settingsError: err.message, status: 422 });
      }
      throw err;
    }
    res.redirect(303, `/console/agents/${idOf(req)}/website`);
  }));

  /** The live preview's key: an active key of the agent that allows this console's origin (the preview page's own). */
  async function previewKey(scope: ReturnType<typeof scopeOf>, agentId: string, origin: string | undefined) {
    if (!origin) return undefined;
    const keys = await services.publishableKeys.listKeys({ ...scope, agentId });
    return keys.data.find((k) => k.revoked_at === null && k.allowed_origins.includes(origin));
  }

  router.get('/agents/:id/website/preview', page(async (req, res) => {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const agent = await services.agents.getAgent({ ...scope, agentId: idOf(req) });
    const [key, settings] = await Promise.all([
      previewKey(scope, agent.id, serviceOriginOf(req)),
      services.widgetSettings.getWidgetSettings({ ...scope, agentId: agent.id }),
    ]);
    res.type('html').send(previewPage({ agent, key, settings, csrf: session.csrfToken }));
  }));

  /** Opens the preview, first making its key (named Console preview, allowing this origin only) when none allows it. */
  router.post('/agents/:id/website/preview', page(async (req, res) => {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const agentId = idOf(req);
    const origin = serviceOriginOf(req);
    if (origin && !(await previewKey(scope, agentId, origin))) {
      try {
        await services.publishableKeys.createKey({ ...scope, agentId, allowedOrigins: [origin], name: 'Console preview' });
      } catch (err) {
        if (!(err instanceof AppError) || !['parameter_unprocessable', 'parameter_invalid', 'account_limit_reached'].includes(err.code)) throw err;
        const agent = await services.agents.getAgent({ ...scope, agentId });
        const settings = await services.widgetSettings.getWidgetSettings({ ...scope, agentId });
        res.status(422).type('html').send(previewPage({ agent, settings, csrf: session.csrfToken, error: `No preview key could be made for ${origin}: ${err.message}` }));
        return;
      }
    }
    res.redirect(303, `/console/agents/${agentId}/website/preview`);
  }));
}
