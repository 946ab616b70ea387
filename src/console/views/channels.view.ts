import type { AgentObject } from '../../agents/agent.schemas';
import type { CallObject } from '../../channels/voice/call.schemas';
import type { EmailAddressObject } from '../../channels/email/email.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';

/** The agent options of a select: no agent, then the live agents configured for `channel`. */
const agentOptions = (agents: AgentObject[], channel: string, selected: string | null) =>
  html`<option value="">no agent</option>${agents
    .filter((a) => a.status === 'live' && a.channels.includes(channel as never))
    .map((a) => html`<option value="${a.id}" ${selected === a.id ? 'selected' : ''}>${a.name}</option>`)}`;

/** The account's inbound email addresses with the agent answering each; add, change the agent, delete. */
export function emailAddressesPage({ addresses, agents, csrf }: { addresses: EmailAddressObject[]; agents: AgentObject[]; csrf: string }): Html {
  const names = new Map(agents.map((a) => [a.id, a.name]));
  return html`<div class="page-head"><h1>Email addresses</h1></div>
    <p class="muted">Mail your relay delivers to an address with a live email agent opens or continues a conversation, and the agent answers from that address.</p>
    ${addresses.length
      ? html`<table class="list"><thead><tr><th>Address</th><th>Agent answering</th><th></th><th></th></tr></thead><tbody>
      ${addresses.map((e) => html`<tr><td class="mono">${e.address}<div class="muted">${e.display_name ?? ''}</div></td>
        <td>${e.agent_id ? html`<a href="/console/agents/${e.agent_id}">${names.get(e.agent_id) ?? e.agent_id}</a>` : html`<span class="muted">none</span>`}</td>
        <td><form method="post" action="/console/email/${e.id}/agent" class="row">${csrfField(csrf)}<select name="agent_id" aria-label="Agent for ${e.address}">${agentOptions(agents, 'email', e.agent_id)}</select><button class="button">${e.agent_id ? 'Change' : 'Attach'}</button></form></td>
        <td><form method="post" action="/console/email/${e.id}/delete" data-confirm="Delete ${e.address}? Mail to it will be ignored.">${csrfField(csrf)}<button class="button danger">Delete</button></form></td></tr>`)}
      </tbody></table>`
      : html`<p class="empty">No email addresses yet.</p>`}
    <form method="post" action="/console/email" class="card">${csrfField(csrf)}<h2>Add an address</h2>
      <label>Address <span class="hint">a mailbox your relay delivers to this service</span><input name="address" type="email" required placeholder="support@acme.example"></label>
      <label>Display name <span class="hint">the sender name of replies</span><input name="display_name" placeholder="Acme Support"></label>
      <label>Agent <select name="agent_id">${agentOptions(agents, 'email', null)}</select></label>
      <button class="button primary">Add address</button></form>`;
}

/** The account's voice calls, newest first: who called which number, status, duration, transcript, recording. */
export function callsPage({ calls, numbers }: { calls: CallObject[]; numbers: Map<string, string> }): Html {
  return html`<div class="page-head"><h1>Calls</h1></div>
    <p class="muted">Inbound calls to the account's numbers. A call handed to an agent has its turns in a conversation.</p>
    ${calls.length
      ? html`<table class="list"><thead><tr><th>When</th><th>From</th><th>To</th><th>Status</th><th>Duration</th><th>Conversation</th><th>Recording</th></tr></thead><tbody>
      ${calls.map((c) => html`<tr><td>${timeAgo(c.created_at)}</td><td class="mono">${c.from || 'withheld'}</td><td class="mono">${numbers.get(c.phone_number_id) ?? c.to}</td>
        <td>${statusBadge(c.status)}${c.transferred_to ? html`<div class="muted">transferred to ${c.transferred_to}</div>` : ''}</td>
        <td>${c.duration_seconds === null ? html`<span class="muted">—</span>` : `${c.duration_seconds} s`}</td>
        <td>${c.conversation_id ? html`<a href="/console/inbox/${c.conversation_id}">transcript</a>` : html`<span class="muted">none</span>`}</td>
        <td>${c.recording ? html`<a href="${c.recording.url}" target="_blank" rel="noopener noreferrer">recording</a>` : html`<span class="muted">none</span>`}</td></tr>`)}
      </tbody></table>`
      : html`<p class="empty">No calls yet. In test mode, place one with <code>POST /v1/test_helpers/calls</code>.</p>`}`;
}
