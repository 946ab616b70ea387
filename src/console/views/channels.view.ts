import type { AgentObject } from '../../agents/agent.schemas';
import type { CallObject } from '../../channels/voice/call.schemas';
import type { EmailAddressObject, EmailDomainObject, EmailWithContent } from '../../channels/email/email.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';

/** The agent options of a select: no agent, then the live agents configured for `channel`. */
const agentOptions = (agents: AgentObject[], channel: string, selected: string | null) =>
  html`<option value="">no agent</option>${agents
    .filter((a) => a.status === 'live' && a.channels.includes(channel as never))
    .map((a) => html`<option value="${a.id}" ${selected === a.id ? 'selected' : ''}>${a.name}</option>`)}`;

/**
 * The Email page: a banner while no SMTP relay is configured; the account's domains with the DNS records
 * that prove them (verify, delete, add); its addresses with the agent answering each (add, change the
 * agent, delete); in test mode, the sandbox's latest emails.
 */
export function emailAddressesPage({ addresses, agents, domains, sandbox, smtpConfigured, csrf }: {
  addresses: EmailAddressObject[];
  agents: AgentObject[];
  domains: EmailDomainObject[];
  /** Test mode: the sandbox's latest outbound emails with their content. */
  sandbox?: EmailWithContent[];
  smtpConfigured: boolean;
  csrf: string;
}): Html {
  const names = new Map(agents.map((a) => [a.id, a.name]));
  return html`<div class="page-head"><h1>Email</h1></div>
    ${smtpConfigured
      ? ''
      : html`<p class="error-banner" role="status" data-banner="smtp-not-configured"><b>No SMTP relay is configured</b> (<code>SMTP_HOST</code>): live email replies are not sent; each is marked <b>failed</b> (<code>smtp_not_configured</code>) in its transcript and emits <code>email.failed</code>. Test mode uses the sandbox below.</p>`}
    <p class="muted">Mail your relay delivers to an address with a live email agent opens or continues a conversation, and the agent answers from that address. In live mode an address must be on one of your verified domains; in test mode nothing is sent to a relay: the sandbox takes every email.</p>
    <h2>Domains</h2>
    ${domains.length
      ? html`<table class="list"><thead><tr><th>Domain</th><th>Status</th><th>DNS records to publish (TXT)</th><th></th></tr></thead><tbody>
      ${domains.map((d) => html`<tr><td class="mono">${d.domain}</td><td>${statusBadge(d.status)}${d.dkim_verified_at ? html`<div class="muted">DKIM signing</div>` : ''}</td>
        <td>${d.dns_records.map((r) => html`<div class="dns-record"><span class="muted">${r.purpose === 'ownership' ? 'Ownership' : 'DKIM'} (${r.status})</span><div>Name <code class="mono">${r.name}</code></div><div>Value <code class="mono" style="word-break:break-all">${r.value}</code></div></div>`)}</td>
        <td><form method="post" action="/console/email/domains/${d.id}/verify" class="inline">${csrfField(csrf)}<button class="button">${d.status === 'verified' ? 'Check again' : 'Verify'}</button></form>
          <form method="post" action="/console/email/domains/${d.id}/delete" class="inline" data-confirm="Delete ${d.domain}? Live mail to and from its addresses stops.">${csrfField(csrf)}<button class="button danger">Delete</button></form></td></tr>`)}
      </tbody></table>`
      : html`<p class="empty">No domains yet. Add the domain of your addresses, publish its TXT record, and verify it.</p>`}
    <form method="post" action="/console/email/domains" class="card">${csrfField(csrf)}<h2>Add a domain</h2>
      <label>Domain <span class="hint">a domain whose DNS you run; its subdomains are covered too</span><input name="domain" required placeholder="acme.example"></label>
      <button class="button primary">Add domain</button></form>
    <h2>Addresses</h2>
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
      <button class="button primary">Add address</button></form>
    ${sandbox
      ? html`<h2>Sandbox</h2><p class="muted">Test-mode emails never reach a relay: the sandbox takes them. The latest 20 (also at <code>GET /v1/emails</code>):</p>
      ${sandbox.length
        ? html`<table class="list sandbox"><thead><tr><th>When</th><th>From</th><th>To</th><th>Subject</th><th>Status</th></tr></thead><tbody>
        ${sandbox.map((e) => html`<tr><td>${timeAgo(e.created_at)}</td><td class="mono">${e.from}</td><td class="mono">${e.to}</td>
          <td><details><summary>${e.subject}</summary><pre class="email-text">${e.content?.text ?? ''}</pre></details>${e.conversation_id ? html`<a class="muted" href="/console/inbox/${e.conversation_id}">conversation</a>` : ''}</td>
          <td>${statusBadge(e.status)}${e.error ? html`<div class="muted mono">${e.error.code}</div>` : ''}</td></tr>`)}
        </tbody></table>`
        : html`<p class="empty">No test emails yet. Receive one with <code>POST /v1/test_helpers/inbound_emails</code>.</p>`}`
      : ''}`;
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
