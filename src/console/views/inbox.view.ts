import type { AgentObject } from '../../agents/agent.schemas';
import type { ConversationMessageObject, ConversationObject } from '../../conversations/conversation.schemas';
import type { RunObject } from '../../runs/run.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';
import { runDetails, scorePercent } from './run.view';
import { approvalBadge, approvalPanels } from './approval.view';
import { CONVERSATION_CHANNELS } from '../../domain/channels';

/** A console test chat: nothing of it reaches a customer. */
const testBadge = html`<span class="badge badge-test" data-test-badge title="A console test chat: nothing is sent to a customer">test</span>`;

/** The inbox's filters as read from the query (each optional). */
export interface InboxFilter {
  status?: string;
  channel?: string;
  agent_id?: string;
  tag?: string;
  test?: string;
}

/** The inbox: tabs by status (the handoff queue among them), filters, and a page of conversations. */
export function inboxPage({ f, agents, list, awaitingApproval = new Set() }: { f: InboxFilter; agents: AgentObject[]; list: { data: ConversationObject[]; has_more: boolean }; awaitingApproval?: ReadonlySet<string> }): Html {
  const names = new Map(agents.map((a) => [a.id, a.name]));
  const tab = (label: string, status?: string) =>
    html`<a class="tab ${f.status === status && !f.test ? 'active' : ''}" href="/console/inbox${status ? `?status=${status}` : ''}">${label}</a>`;
  const queue = f.status === 'handed_off';
  return html`<div class="page-head"><h1>Inbox</h1><div class="head-actions"><a class="button" href="/console/queues">Queues and business hours</a></div></div>
      <div class="tabs">${tab('All')}${tab('Handoff queue', 'handed_off')}${tab('Active', 'active')}${tab('Closed', 'closed')}<a class="tab ${f.test ? 'active' : ''}" href="/console/inbox?test=1" data-tab-tests>Test chats</a></div>
      <form method="get" class="filters row">
        ${f.status ? html`<input type="hidden" name="status" value="${f.status}">` : ''}${f.test ? html`<input type="hidden" name="test" value="1">` : ''}
        <label>Channel <select name="channel"><option value="">any</option>${CONVERSATION_CHANNELS.map((c) => html`<option ${f.channel === c ? 'selected' : ''}>${c}</option>`)}</select></label>
        <label>Agent <select name="agent_id"><option value="">any</option>${agents.map((a) => html`<option value="${a.id}" ${f.agent_id === a.id ? 'selected' : ''}>${a.name}</option>`)}</select></label>
        <label>Tag <input name="tag" value="${f.tag ?? ''}" class="short"></label>
        <button class="button">Filter</button></form>
      ${list.data.length === 0
        ? html`<p class="empty">${f.test ? 'No test chats yet: try an agent in its test chat.' : queue ? 'Nobody is waiting for a person. Conversations the agent hands off appear here.' : 'No conversations match.'}</p>`
        : html`<table class="list inbox"><thead><tr><th>Customer</th><th>Status</th><th>Channel</th><th>Agent</th>${queue ? html`<th>Handoff</th>` : html`<th>Tags</th>`}<th>Updated</th></tr></thead><tbody>
        ${list.data.map((c) => {
          const who = String(c.customer.name ?? c.customer.email ?? c.customer.phone ?? c.customer.id ?? 'Anonymous customer');
          const h = c.handoff as { reason?: string; summary?: string; queue?: string } | null;
          return html`<tr class="${c.unread ? 'unread' : ''}" data-conversation="${c.id}"><td><a href="/console/inbox/${c.id}">${who}</a> ${c.unread ? html`<span class="badge badge-unread" data-unread>unread</span>` : ''} ${awaitingApproval.has(c.id) ? approvalBadge : ''} ${f.test ? testBadge : ''}<div class="muted mono">${c.id}</div></td><td>${statusBadge(c.status)}</td><td>${c.channel}</td><td>${c.agent_id === null ? html`<span class="muted">none (team)</span>` : (names.get(c.agent_id) ?? c.agent_id)}</td>
          ${queue ? html`<td>${h ? html`<b>${h.queue ?? ''}</b> · ${(h.reason ?? '').replace(/_/g, ' ')}<div class="muted clamp">${h.summary ?? ''}</div>` : html`<span class="muted">${c.agent_id === null ? 'to the team (no agent)' : ''}</span>`}</td>` : html`<td>${c.tags.map((t) => html`<span class="tag">${t}</span> `)}</td>`}
          <td>${timeAgo(c.updated_at)}</td></tr>`;
        })}</tbody></table>
        ${list.has_more ? html`<p><a class="button" href="?${new URLSearchParams({ ...(f.test ? { test: f.test } : {}), ...(f.status ? { status: f.status } : {}), ...(f.channel ? { channel: f.channel } : {}), ...(f.agent_id ? { agent_id: f.agent_id } : {}), ...(f.tag ? { tag: f.tag } : {}), starting_after: list.data.at(-1)!.id }).toString()}">Older</a></p>` : ''}`}`;
}

/** One conversation: its handoff, the transcript with each customer turn's run, the reply and close forms. */
export function conversationPage({ c, agent, messages, runs, deliveries = new Map(), who, csrf, ui }: {
  c: ConversationObject;
  /** null: a conversation without an agent (the team's). */
  agent: AgentObject | null;
  messages: ConversationMessageObject[];
  runs: Map<string, RunObject>;
  /** How each reply sent by email or SMS fared, by transcript message id. */
  deliveries?: Map<string, ReplyDelivery>;
  who: string;
  csrf: string;
  ui: { uiUrl: string; namespace: string };
}): Html {
  const h = c.handoff as { reason: string; queue: string; summary: string; suggested_reply: string } | null;
  const test = c.metadata.console_test === 'true';
  return html`<div class="page-head"><div><a href="/console/inbox${test ? '?test=1' : ''}" class="muted">Inbox</a> / <h1>${who}</h1> ${statusBadge(c.status)} ${test ? testBadge : ''}
        <div class="muted">${c.channel} · ${agent ? html`agent <a href="/console/agents/${agent.id}">${agent.name}</a>` : html`<span data-no-agent>no agent: the team answers</span>`} · <span class="mono">${c.id}</span> ${c.tags.map((t) => html`<span class="tag">${t}</span> `)}</div></div>
        ${c.status !== 'closed' ? html`<form method="post" action="/console/inbox/${c.id}/close" class="inline">${csrfField(csrf)}<button class="button danger">Close conversation</button></form>` : ''}</div>
      ${h ? html`<section class="handoff-box"><h2>Handed off to ${h.queue}</h2><p><span class="muted">Why:</span> ${h.reason.replace(/_/g, ' ')}</p>
        <p><span class="muted">Summary:</span> ${h.summary}</p><p><span class="muted">Suggested reply:</span> <span data-suggested>${h.suggested_reply}</span>
        <button type="button" class="link" data-use-suggested>use it</button></p></section>` : ''}
      ${approvalPanels({ runs, agent, csrf })}
      <ol class="transcript">${messages.map((m) => {
        const run = m.run_id && m.role === 'customer' ? runs.get(m.run_id) : undefined;
        return html`<li class="turn turn-${m.role}"><div class="turn-head"><b>${m.role === 'customer' ? who : m.role === 'agent' ? 'Agent' : m.role === 'system' ? 'Notice to the customer' : (m.author?.name ?? 'Support team')}</b> <span class="muted">${m.channel} · ${timeAgo(m.created_at)}</span></div>
          <div class="turn-body">${m.content}</div>
          ${deliveryMark(deliveries.get(m.id))}
          ${m.role === 'customer' && agent ? addToTests(c.id, m.id, csrf) : ''}
          ${run ? html`<details class="run-box"><summary>Run ${run.id} · ${run.status.replace(/_/g, ' ')} · confidence ${scorePercent(run.confidence)}</summary>${runDetails(run, ui)}</details>` : ''}</li>`;
      })}</ol>
      ${c.status !== 'closed'
        ? html`<section class="reply-box"><form method="post" action="/console/inbox/${c.id}/reply">${csrfField(csrf)}
            <label>Reply as a person <span class="hint">${c.channel === 'chat' ? 'added to the transcript' : `added to the transcript and sent over ${c.channel}`}</span><textarea name="content" rows="3" data-reply required></textarea></label>
            <button class="button primary">Send reply</button></form>
          ${h ? html`<form method="post" action="/console/inbox/${c.id}/handoff/close" class="close-handoff">${csrfField(csrf)}
            <label>Note <span class="hint">why the case is done; control returns to the agent</span><input name="note"></label><button class="button">Close handoff</button></form>` : ''}</section>`
        : html`<p class="muted">This conversation is closed.</p>`}`;
}

/** How a reply fared on its channel, from the channel's own record of it (the email, the SMS). */
export interface ReplyDelivery {
  channel: 'email' | 'sms';
  /** The record's status: failed (never handed to a relay or carrier), bounced, undelivered, or any other. */
  status: string;
  code: string | null;
  message: string | null;
  /** Test mode: the sandbox took it (nothing left the service). */
  sandbox: boolean;
  to: string;
}

/**
 * A reply that was not sent or not delivered is marked with the reason ("Not sent: smtp_not_configured");
 * one a sandbox took says so; anything else on its way or taken shows nothing.
 */
function deliveryMark(d: ReplyDelivery | undefined): Html | string {
  if (!d) return '';
  if (d.status === 'failed' || d.status === 'bounced' || d.status === 'undelivered') {
    const label = d.status === 'failed' ? 'Not sent' : d.status === 'bounced' ? 'Bounced' : 'Not delivered';
    return html`<div class="delivery delivery-${d.status}" role="note">${statusBadge(d.status)} <b>${label}:</b> <span class="mono">${d.code ?? ''}</span> <span class="muted">${d.message ?? ''}</span></div>`;
  }
  if (d.sandbox) return html`<div class="delivery muted">Test mode: taken by the ${d.channel === 'email' ? 'email' : 'SMS'} sandbox, not sent to ${d.to}</div>`;
  return '';
}

/** "Add to tests" on a customer turn: a test case of the agent from the turns up to it, expecting the answer given (reply) or a handoff. */
function addToTests(conversationId: string, messageId: string, csrf: string): Html {
  return html`<form method="post" action="/console/inbox/${conversationId}/add-to-tests" class="inline add-to-tests" data-add-to-tests>${csrfField(csrf)}
    <input type="hidden" name="message_id" value="${messageId}">
    <select name="expect" aria-label="What the test expects"><option value="reply">expect the answer given</option><option value="handoff">expect a handoff</option></select>
    <button class="link">Add to tests</button></form>`;
}
