import type { AgentObject } from '../../agents/agent.schemas';
import type { PhoneNumberObject } from '../../numbers/phone-number.schemas';
import type { WebhookDeliveryObject } from '../../webhooks/webhook-delivery.schemas';
import type { WebhookEndpointObject } from '../../webhooks/webhook-endpoint.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';

/** What the numbers page shows of a sender ID or short code. */
export interface SenderRow {
  sender: string;
  kind: string;
  created_at: string;
}

/** What the keys page shows of an API key (never its hash). */
export interface KeyRow {
  id: string;
  name: string;
  mode: 'test' | 'live';
  last4: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  role: string;
}

/** A secret shown once (a webhook signing secret, a new API key) with a copy button. */
export const secretOnce = (label: string, secret: string) =>
  html`<div class="secret-once" role="status"><b>${label}</b> It is shown only this once: copy it now.<div class="row"><code data-secret>${secret}</code><button type="button" class="button" data-copy>Copy</button></div></div>`;

const FLOW_EXAMPLE = '{"actions":[{"action":"say","text":"Thanks for calling."},{"action":"connect_agent","agent_id":"agt_…","transfer_to":"+14155550199"}],"record":false}';

/** A number's call flow in a sentence, and a form to replace it (JSON, as the API takes it; empty: no calls). */
function callFlowCell(n: PhoneNumberObject, names: Map<string, string>, csrf: string): Html {
  const flow = n.voice_call_flow;
  const last = flow?.actions.at(-1);
  const summary = !flow
    ? 'no calls'
    : last?.action === 'connect_agent'
      ? `answered by ${names.get(last.agent_id) ?? last.agent_id}, handoffs to ${last.transfer_to}`
      : last?.action === 'dial'
        ? `forwarded to ${last.number}`
        : 'a message, then hang up';
  return html`<details><summary>${summary}${flow?.record ? ' · recorded' : ''}</summary>
    <form method="post" action="/console/numbers/${n.id}/call_flow">${csrfField(csrf)}
      <label>Call flow <span class="hint">JSON, as <code>voice_call_flow</code> of the API; empty: the number takes no calls</span>
      <textarea name="voice_call_flow" rows="6" class="mono" spellcheck="false" placeholder="${FLOW_EXAMPLE}">${flow ? JSON.stringify(flow, null, 2) : ''}</textarea></label>
      <button class="button">Save call flow</button></form></details>`;
}

/** Phone numbers with the agent answering each (only live agents can), and the senders. */
export function numbersPage({ numbers, senders, agents, csrf, sandboxOnly = false, signSmsReplies = false, canChangeSignature = false }: { numbers: PhoneNumberObject[]; senders: SenderRow[]; agents: AgentObject[]; csrf: string; sandboxOnly?: boolean; signSmsReplies?: boolean; canChangeSignature?: boolean }): Html {
  const live = agents.filter((a) => a.status === 'live');
  const names = new Map(agents.map((a) => [a.id, a.name]));
  return html`<div class="page-head"><h1>Numbers</h1></div>
      ${sandboxOnly
        ? html`<p class="error-banner" role="status" data-banner="sandbox-carrier-only"><b>Only the sandbox carrier is configured</b> (<code>SMS_CARRIERS</code>): no SMS leaves this service, live ones included. Their receipts are simulated.</p>`
        : ''}
      <p class="muted">Inbound messages to a number with a live agent open or continue a conversation with it, and the agent replies by SMS.</p>
      ${numbers.length ? html`<table class="list"><thead><tr><th>Number</th><th>Agent answering</th><th></th><th>Calls</th></tr></thead><tbody>
      ${numbers.map((n) => html`<tr><td class="mono">${n.number}<div class="muted">${n.country ?? ''}</div></td><td>${n.agent_id ? html`<a href="/console/agents/${n.agent_id}">${names.get(n.agent_id) ?? n.agent_id}</a>` : html`<span class="muted">none</span>`}</td>
        <td><form method="post" action="/console/numbers/${n.id}/agent" class="row">${csrfField(csrf)}
          <select name="agent_id"><option value="">no agent</option>${live.map((a) => html`<option value="${a.id}" ${n.agent_id === a.id ? 'selected' : ''}>${a.name}</option>`)}</select>
          <button class="button">${n.agent_id ? 'Change' : 'Attach'}</button></form></td>
        <td>${callFlowCell(n, names, csrf)}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No phone numbers in this account yet (provision them with <code>npm run cli -- numbers</code>).</p>`}
      ${live.length === 0 && numbers.length ? html`<p class="muted">Only live agents can answer a number: publish one first.</p>` : ''}
      <h2>Replies by your team</h2>
      <form method="post" action="/console/numbers/sign-replies" class="row" data-sign-sms-replies>${csrfField(csrf)}
        <label class="check"><input type="checkbox" name="sign_sms_replies" value="1" ${signSmsReplies ? 'checked' : ''} ${canChangeSignature ? '' : 'disabled'}> Sign SMS replies <span class="hint">a teammate's SMS reply ends with "— their display name" (email replies always carry it in From)</span></label>
        ${canChangeSignature ? html`<button class="button">Save</button>` : html`<span class="muted">owners and admins change this</span>`}</form>
      <h2>Senders</h2>
      ${senders.length ? html`<table class="list"><thead><tr><th>Sender</th><th>Kind</th><th>Registered</th></tr></thead><tbody>${senders.map((s) => html`<tr><td class="mono">${s.sender}</td><td>${s.kind.replace('_', ' ')}</td><td>${timeAgo(s.created_at)}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No sender IDs or short codes.</p>`}`;
}

/** Webhook endpoints with their recent deliveries (deliveries[i] belongs to endpoints[i]) and the add form. */
export function webhooksPage({ endpoints, deliveries, secret, csrf }: { endpoints: WebhookEndpointObject[]; deliveries: WebhookDeliveryObject[][]; secret?: Html; csrf: string }): Html {
  return html`<div class="page-head"><h1>Webhooks</h1></div>${secret ?? ''}
      ${endpoints.map((e, i) => html`<section class="card endpoint"><div class="row"><b class="mono">${e.url}</b> ${e.enabled ? statusBadge('enabled') : statusBadge('disabled')}
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
      ${endpoints.length === 0 ? html`<p class="empty">No endpoints. Add one to receive events (messages, runs, handoffs, knowledge indexing) signed with HMAC-SHA256.</p>` : ''}
      <form method="post" action="/console/webhooks" class="card">${csrfField(csrf)}<h2>Add an endpoint</h2>
        <label>URL <input name="url" placeholder="https://example.com/hooks" required></label>
        <label>Events <span class="hint">* for all, or comma-separated types (run.completed, conversation.handoff, …)</span><input name="events" value="*"></label>
        <label>Description <input name="description"></label><button class="button primary">Add endpoint</button></form>`;
}

/** The session's mode's API keys and the form that creates one. */
export function keysPage({ keys, secret, mode, csrf, grantable }: { keys: KeyRow[]; secret?: Html; mode: 'test' | 'live'; csrf: string; grantable: readonly string[] }): Html {
  return html`<div class="page-head"><h1>API keys</h1></div>${secret ?? ''}
      <table class="list"><thead><tr><th>Name</th><th>Key</th><th>Mode</th><th>Role</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>
      ${keys.map((k) => html`<tr class="${k.revoked_at ? 'revoked' : ''}"><td>${k.name}</td><td class="mono">sk_${k.mode}_…${k.last4}</td><td>${k.mode}</td><td><span class="tag" data-key-role>${k.role}</span></td><td>${timeAgo(k.created_at)}</td><td>${timeAgo(k.last_used_at)}</td>
        <td>${k.revoked_at ? html`<span class="muted">revoked ${timeAgo(k.revoked_at)}</span>` : html`<form method="post" action="/console/keys/${k.id}/revoke" class="inline" data-confirm="Revoke this key? Calls with it fail at once.">${csrfField(csrf)}<button class="link danger">Revoke</button></form>`}</td></tr>`)}
      </tbody></table>
      <form method="post" action="/console/keys" class="card">${csrfField(csrf)}<h2>Create a ${mode} key</h2>
        <label>Name <input name="name" placeholder="backend"></label>
        <label>Role <span class="hint">what the key may call: viewer reads; agent also replies, hands back and approves; admin and owner everything (never above your own role)</span>
          <select name="role">${grantable.map((r) => html`<option ${r === grantable.at(-1) ? 'selected' : ''}>${r}</option>`)}</select></label>
        <button class="button primary">Create key</button></form>`;
}
