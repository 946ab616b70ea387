import type { Router, Response } from 'express';
import { z } from 'zod';
import { AppError } from '../domain/errors';
import { idOf, page, principalOf, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { html, type Html } from './html';
import { csrfField, statusBadge, timeAgo } from './views/layout';
import { scopeOf } from '../domain/principal';

const EndpointSchema = z.object({ url: z.string().trim().min(1, 'Enter the https URL of your endpoint'), events: z.string().trim().default('*'), description: z.string().trim().max(500).optional() });
const AttachSchema = z.object({ agent_id: z.string().default('') });
const KeySchema = z.object({ name: z.string().trim().max(100).default('console') });

const secretOnce = (label: string, secret: string) =>
  html`<div class="secret-once" role="status"><b>${label}</b> It is shown only this once: copy it now.<div class="row"><code data-secret>${secret}</code><button type="button" class="button" data-copy>Copy</button></div></div>`;

/** Numbers and senders, webhook endpoints (secrets shown once, deliveries, redeliver) and API keys. */
export function registerConsoleSettingsRoutes(router: Router, { services }: ConsoleDeps) {
  // Banners come from fixed texts chosen by a code in the query (never the query's own text).
  const NUMBER_NOTICES = new Map([
    ['attached', 'The number is answered by the agent now.'],
    ['detached', 'The number has no agent now.'],
  ]);

  async function numbersPage(res: Response, extra: { notice?: string; error?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const accountId = session.accountId;
    const livemode = session.mode === 'live';
    const [numbers, senders, agents] = await Promise.all([
      services.phoneNumbers.listPhoneNumbers({ accountId, livemode, page: { limit: 100 } }),
      services.senders.listSenders({ accountId, livemode, page: { limit: 100 } }),
      services.agents.listAgents({ accountId, livemode, page: { limit: 100 } }),
    ]);
    const live = agents.data.filter((a) => a.status === 'live');
    const names = new Map(agents.data.map((a) => [a.id, a.name]));
    sendPage(res, {
      title: 'Numbers',
      active: 'numbers',
      notice: extra.notice,
      error: extra.error,
      status: extra.status,
      body: html`<div class="page-head"><h1>Numbers</h1></div>
      <p class="muted">Inbound messages to a number with a live agent open or continue a conversation with it, and the agent replies by SMS.</p>
      ${numbers.data.length ? html`<table class="list"><thead><tr><th>Number</th><th>Agent answering</th><th></th></tr></thead><tbody>
      ${numbers.data.map((n) => html`<tr><td class="mono">${n.number}<div class="muted">${n.country ?? ''}</div></td><td>${n.agent_id ? html`<a href="/console/agents/${n.agent_id}">${names.get(n.agent_id) ?? n.agent_id}</a>` : html`<span class="muted">none</span>`}</td>
        <td><form method="post" action="/console/numbers/${n.id}/agent" class="row">${csrfField(session.csrfToken)}
          <select name="agent_id"><option value="">no agent</option>${live.map((a) => html`<option value="${a.id}" ${n.agent_id === a.id ? 'selected' : ''}>${a.name}</option>`)}</select>
          <button class="button">${n.agent_id ? 'Change' : 'Attach'}</button></form></td></tr>`)}</tbody></table>`
        : html`<p class="empty">No phone numbers in this account yet (provision them with <code>npm run cli -- numbers</code>).</p>`}
      ${live.length === 0 && numbers.data.length ? html`<p class="muted">Only live agents can answer a number: publish one first.</p>` : ''}
      <h2>Senders</h2>
      ${senders.data.length ? html`<table class="list"><thead><tr><th>Sender</th><th>Kind</th><th>Registered</th></tr></thead><tbody>${senders.data.map((s) => html`<tr><td class="mono">${s.sender}</td><td>${s.kind.replace('_', ' ')}</td><td>${timeAgo(s.created_at)}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No sender IDs or short codes.</p>`}`,
    });
  }

  router.get('/numbers', page(async (req, res) => numbersPage(res, { notice: NUMBER_NOTICES.get(String(req.query.done)) })));

  router.post('/numbers/:id/agent', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = AttachSchema.parse(req.body);
    try {
      const n = await services.phoneNumbers.attachAgent({ ...scopeOf(session), phoneNumberId: idOf(req), agentId: body.agent_id || null });
      res.redirect(303, `/console/numbers?done=${n.agent_id ? 'attached' : 'detached'}`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await numbersPage(res, { error: err.message, status: 422 });
    }
  }));

  async function webhooksPage(res: Response, extra: { secret?: Html; error?: string; notice?: string; status?: number } = {}) {
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
      body: html`<div class="page-head"><h1>Webhooks</h1></div>${extra.secret ?? ''}
      ${endpoints.data.map((e, i) => html`<section class="card endpoint"><div class="row"><b class="mono">${e.url}</b> ${e.enabled ? statusBadge('enabled') : statusBadge('disabled')}
        <span class="muted">${e.events.join(', ')}</span></div><div class="muted mono">${e.id}</div>
        <div class="row">
          <form method="post" action="/console/webhooks/${e.id}/rotate" class="inline" data-confirm="Rotate the signing secret? The old one stops working.">${csrfField(csrf)}<button class="button">Rotate secret</button></form>
          <form method="post" action="/console/webhooks/${e.id}/${e.enabled ? 'disable' : 'enable'}" class="inline">${csrfField(csrf)}<button class="button">${e.enabled ? 'Disable' : 'Enable'}</button></form>
          <form method="post" action="/console/webhooks/${e.id}/delete" class="inline" data-confirm="Delete this endpoint?">${csrfField(csrf)}<button class="button danger">Delete</button></form></div>
        <h3>Recent deliveries</h3>
        ${deliveries[i]!.length ? html`<table class="list compact"><thead><tr><th>Event</th><th>Status</th><th>Attempts</th><th>Created</th><th></th></tr></thead><tbody>
        ${deliveries[i]!.map((d) => html`<tr><td class="mono">${d.event_id}</td><td>${statusBadge(d.status)} ${d.last_status_code ?? ''}</td>
          <td>${d.attempts.map((a) => html`<div class="muted">#${a.attempt} ${a.outcome} ${a.status_code ?? ''} ${a.latency_ms} ms ${a.error ?? ''}</div>`)}</td><td>${timeAgo(d.created_at)}</td>
          <td><form method="post" action="/console/webhooks/${e.id}/redeliver" class="inline">${csrfField(csrf)}<input type="hidden" name="event_id" value="${d.event_id}"><button class="link">Redeliver</button></form></td></tr>`)}</tbody></table>`
          : html`<p class="muted">No deliveries yet.</p>`}</section>`)}
      ${endpoints.data.length === 0 ? html`<p class="empty">No endpoints. Add one to receive events (messages, runs, handoffs, knowledge indexing) signed with HMAC-SHA256.</p>` : ''}
      <form method="post" action="/console/webhooks" class="card">${csrfField(csrf)}<h2>Add an endpoint</h2>
        <label>URL <input name="url" placeholder="https://example.com/hooks" required></label>
        <label>Events <span class="hint">* for all, or comma-separated types (run.completed, conversation.handoff, …)</span><input name="events" value="*"></label>
        <label>Description <input name="description"></label><button class="button primary">Add endpoint</button></form>`,
    });
  }

  router.get('/webhooks', page(async (req, res) => webhooksPage(res, { notice: req.query.redelivered ? 'Queued for redelivery.' : undefined })));

  router.post('/webhooks', page(async (req, res) => {
    const body = EndpointSchema.parse(req.body);
    try {
      const e = await services.webhookEndpoints.createEndpoint({
        principal: principalOf(res),
        url: body.url,
        events: body.events.split(',').map((s) => s.trim()).filter(Boolean),
        description: body.description || undefined,
      });
      await webhooksPage(res, { secret: secretOnce(`Signing secret of ${e.url}.`, e.signing_secret ?? '') });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await webhooksPage(res, { error: err.message, status: 422 });
    }
  }));

  router.post('/webhooks/:id/rotate', page(async (req, res) => {
    const { session } = sessionOf(res);
    const e = await services.webhookEndpoints.rotateSecret({ ...scopeOf(session), endpointId: idOf(req) });
    await webhooksPage(res, { secret: secretOnce(`New signing secret of ${e.url}.`, e.signing_secret ?? '') });
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

  async function keysPage(res: Response, secret?: Html) {
    const { session } = sessionOf(res);
    // A session sees and manages the keys of its own mode only (a test sign-in never touches live keys).
    const keys = await services.accounts.listApiKeys({ accountId: session.accountId, mode: session.mode });
    sendPage(res, {
      title: 'API keys',
      active: 'keys',
      body: html`<div class="page-head"><h1>API keys</h1></div>${secret ?? ''}
      <table class="list"><thead><tr><th>Name</th><th>Key</th><th>Mode</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>
      ${keys.map((k) => html`<tr class="${k.revoked_at ? 'revoked' : ''}"><td>${k.name}</td><td class="mono">sk_${k.mode}_…${k.last4}</td><td>${k.mode}</td><td>${timeAgo(k.created_at)}</td><td>${timeAgo(k.last_used_at)}</td>
        <td>${k.revoked_at ? html`<span class="muted">revoked ${timeAgo(k.revoked_at)}</span>` : html`<form method="post" action="/console/keys/${k.id}/revoke" class="inline" data-confirm="Revoke this key? Calls with it fail at once.">${csrfField(session.csrfToken)}<button class="link danger">Revoke</button></form>`}</td></tr>`)}
      </tbody></table>
      <form method="post" action="/console/keys" class="card">${csrfField(session.csrfToken)}<h2>Create a ${session.mode} key</h2>
        <label>Name <input name="name" placeholder="backend"></label><button class="button primary">Create key</button></form>`,
    });
  }

  router.get('/keys', page(async (_req, res) => keysPage(res)));

  router.post('/keys', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = KeySchema.parse(req.body);
    // A console session creates keys of its own mode: a test sign-in never mints a live key.
    const { secret } = await services.accounts.createApiKey({ accountId: session.accountId, mode: session.mode, name: body.name || 'console' });
    await keysPage(res, secretOnce('Your new secret key.', secret));
  }));

  router.post('/keys/:id/revoke', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.accounts.revokeApiKey({ accountId: session.accountId, mode: session.mode, keyId: idOf(req) });
    res.redirect(303, '/console/keys');
  }));
}
