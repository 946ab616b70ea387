import type { Router, Response } from 'express';
import { z } from 'zod';
import { AppError } from '../domain/errors';
import { idOf, page, principalOf, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AccountsService } from '../accounts/accounts.service';
import type { AgentsService } from '../agents/agents.service';
import type { EventsService } from '../webhooks/events.service';
import type { PhoneNumbersService } from '../numbers/phone-numbers.service';
import type { SendersService } from '../numbers/senders.service';
import type { WebhookEndpointsService } from '../webhooks/webhook-endpoints.service';
import type { Html } from '../platform/html';
import { keysPage, numbersPage, secretOnce, webhooksPage } from './views/settings.view';
import { scopeOf } from '../domain/principal';
import { ROLES, roleAtLeast, roleInsufficient } from '../domain/roles';
import { consoleRoleNeeded } from './console-roles';

const EndpointSchema = z.object({ url: z.string().trim().min(1, 'Enter the https URL of your endpoint'), events: z.string().trim().default('*'), description: z.string().trim().max(500).optional() });
const AttachSchema = z.object({ agent_id: z.string().default('') });
const CallFlowFormSchema = z.object({ voice_call_flow: z.string().max(20_000).default('') });
const SignRepliesSchema = z.object({ sign_sms_replies: z.string().default('') });
const KeySchema = z.object({ name: z.string().trim().max(100).default('console'), role: z.enum(ROLES).optional() });

/** The services these console pages use. */
interface ConsoleSettingsServices { accounts: AccountsService; agents: AgentsService; events: EventsService; phoneNumbers: PhoneNumbersService; senders: SendersService; webhookEndpoints: WebhookEndpointsService }

/** Numbers (agent, call flow) and senders, webhook endpoints (secrets shown once, deliveries, redeliver) and API keys. */
export function registerConsoleSettingsRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleSettingsServices>) {
  // Banners come from fixed texts chosen by a code in the query (never the query's own text).
  const NUMBER_NOTICES = new Map([
    ['attached', 'The number is answered by the agent now.'],
    ['detached', 'The number has no agent now: its messages go to the inbox, and your team answers them.'],
    ['call_flow', 'The call flow is saved.'],
    ['signed', 'SMS replies by your team are signed with the teammate\'s display name now.'],
    ['unsigned', 'SMS replies by your team are not signed now.'],
  ]);

  async function renderNumbers(res: Response, extra: { notice?: string; error?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const accountId = session.accountId;
    const livemode = session.mode === 'live';
    const [numbers, senders, agents, account] = await Promise.all([
      services.phoneNumbers.listPhoneNumbers({ accountId, livemode, page: { limit: 100 } }),
      services.senders.listSenders({ accountId, livemode, page: { limit: 100 } }),
      services.agents.listAgents({ accountId, livemode, page: { limit: 100 } }),
      services.accounts.getAccount({ accountId }),
    ]);
    sendPage(res, {
      title: 'Numbers',
      active: 'numbers',
      notice: extra.notice,
      error: extra.error,
      status: extra.status,
      body: numbersPage({ numbers: numbers.data, senders: senders.data, agents: agents.data, csrf: session.csrfToken, sandboxOnly: config.sms.carriers.every((c) => c.type === 'sandbox'),
        signSmsReplies: account.sign_sms_replies,
        // The same rule the role table applies to the POST (console-roles.ts: a POST needs admin).
        canChangeSignature: roleAtLeast(session.role, consoleRoleNeeded('POST', '/numbers/sign-replies')) }),
    });
  }

  router.get('/numbers', page(async (req, res) => renderNumbers(res, { notice: NUMBER_NOTICES.get(String(req.query.done)) })));

  // The account's `sign_sms_replies` (POST /v1/account); the role table lets owners and admins post here.
  router.post('/numbers/sign-replies', page(async (req, res) => {
    const { session } = sessionOf(res);
    const sign = SignRepliesSchema.parse(req.body).sign_sms_replies === '1';
    await services.accounts.updateAccount({ accountId: session.accountId, signSmsReplies: sign });
    res.redirect(303, `/console/numbers?done=${sign ? 'signed' : 'unsigned'}`);
  }));

  router.post('/numbers/:id/agent', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = AttachSchema.parse(req.body);
    try {
      const n = await services.phoneNumbers.attachAgent({ ...scopeOf(session), phoneNumberId: idOf(req), agentId: body.agent_id || null });
      res.redirect(303, `/console/numbers?done=${n.agent_id ? 'attached' : 'detached'}`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await renderNumbers(res, { error: err.message, status: 422 });
    }
  }));

  router.post('/numbers/:id/call_flow', page(async (req, res) => {
    const { session } = sessionOf(res);
    const text = CallFlowFormSchema.parse(req.body).voice_call_flow.trim();
    try {
      let flow: unknown = null;
      if (text !== '') {
        try {
          flow = JSON.parse(text);
        } catch {
          throw new AppError('parameter_invalid', 'The call flow is not valid JSON', { param: 'voice_call_flow' });
        }
      }
      await services.phoneNumbers.updatePhoneNumber({ ...scopeOf(session), phoneNumberId: idOf(req), flow: flow as never });
      res.redirect(303, '/console/numbers?done=call_flow');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await renderNumbers(res, { error: err.message, status: 422 });
    }
  }));

  async function renderWebhooks(res: Response, extra: { secret?: Html; error?: string; notice?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const endpoints = await services.webhookEndpoints.listEndpoints({ ...scopeOf(session), page: { limit: 100 } });
    const deliveries = await Promise.all(endpoints.data.map((e) => services.events.listRecentDeliveries({ ...scopeOf(session), endpointId: e.id, limit: 10 })));
    const csrf = session.csrfToken;
    sendPage(res, {
      title: 'Webhooks',
      active: 'webhooks',
      error: extra.error,
      notice: extra.notice,
      status: extra.status,
      body: webhooksPage({ endpoints: endpoints.data, deliveries, secret: extra.secret, csrf }),
    });
  }

  router.get('/webhooks', page(async (req, res) => renderWebhooks(res, { notice: req.query.redelivered ? 'Queued for redelivery.' : undefined })));

  router.post('/webhooks', page(async (req, res) => {
    const body = EndpointSchema.parse(req.body);
    try {
      const e = await services.webhookEndpoints.createEndpoint({
        principal: principalOf(res),
        url: body.url,
        events: body.events.split(',').map((s) => s.trim()).filter(Boolean),
        description: body.description || undefined,
      });
      await renderWebhooks(res, { secret: secretOnce(`Signing secret of ${e.url}.`, e.signing_secret ?? '') });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await renderWebhooks(res, { error: err.message, status: 422 });
    }
  }));

  router.post('/webhooks/:id/rotate', page(async (req, res) => {
    const { session } = sessionOf(res);
    const e = await services.webhookEndpoints.rotateSecret({ ...scopeOf(session), endpointId: idOf(req) });
    await renderWebhooks(res, { secret: secretOnce(`New signing secret of ${e.url}.`, e.signing_secret ?? '') });
  }));

  for (const [action, enabled] of [['disable', false], ['enable', true]] as const) {
    router.post(`/webhooks/:id/${action}`, page(async (req, res) => {
      await services.webhookEndpoints.updateEndpoint({ principal: principalOf(res), endpointId: idOf(req), patch: { enabled } });
      res.redirect(303, '/console/webhooks');
    }));
  }

  router.post('/webhooks/:id/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.webhookEndpoints.deleteEndpoint({ ...scopeOf(session), endpointId: idOf(req) });
    res.redirect(303, '/console/webhooks');
  }));

  router.post('/webhooks/:id/redeliver', page(async (req, res) => {
    const { session } = sessionOf(res);
    const eventId = z.object({ event_id: z.string().startsWith('evt_') }).parse(req.body).event_id;
    await services.events.redeliverEvent({ ...scopeOf(session), eventId, endpointId: idOf(req) });
    res.redirect(303, '/console/webhooks?redelivered=1');
  }));

  async function renderKeys(res: Response, secret?: Html) {
    const { session } = sessionOf(res);
    // A session sees and manages the keys of its own mode only (a test sign-in never touches live keys).
    const keys = await services.accounts.listApiKeys({ accountId: session.accountId, mode: session.mode });
    sendPage(res, {
      title: 'API keys',
      active: 'keys',
      body: keysPage({ keys, secret, mode: session.mode, csrf: session.csrfToken, grantable: ROLES.filter((r) => roleAtLeast(session.role, r)) }),
    });
  }

  router.get('/keys', page(async (_req, res) => renderKeys(res)));

  router.post('/keys', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = KeySchema.parse(req.body);
    // A console session creates keys of its own mode: a test sign-in never mints a live key.
    // A teammate's key never exceeds their own role (a key sign-in's: the key's).
    const role = body.role ?? session.role;
    if (!roleAtLeast(session.role, role)) throw roleInsufficient(`Creating a key with the ${role} role`, role, session.role);
    const { secret } = await services.accounts.createApiKey({ accountId: session.accountId, mode: session.mode, name: body.name || 'console', role, createdByUserId: session.userId });
    await renderKeys(res, secretOnce('Your new secret key.', secret));
  }));

  router.post('/keys/:id/revoke', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.accounts.revokeApiKey({ accountId: session.accountId, mode: session.mode, keyId: idOf(req) });
    res.redirect(303, '/console/keys');
  }));
}
