import type { AgentObject } from '../../agents/agent.schemas';
import type { ConversationMessageObject, ConversationObject } from '../../conversations/conversation.schemas';
import type { RunObject } from '../../runs/run.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';
import { runDetails, scorePercent } from './run.view';
import { approvalPanels } from './approval.view';
import { testBadge } from './inbox-list.view';

/** One conversation: its handoff, the transcript with each customer turn's run, the reply and close forms. */
export function conversationPage({ c, agent, messages, runs, deliveries = new Map(), who, csrf, ui, aside, picker }: {
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
  /** The right column: the customer, assignment, internal notes. */
  aside?: Html;
  /** Saved replies to insert into the reply. */
  picker?: Html;
}): Html {
  const h = c.handoff as { reason: string; queue: string; summary: string; suggested_reply: string } | null;
  const test = c.metadata.console_test === 'true';
  return html`<div class="page-head"><div><a href="/console/inbox${test ? '?test=1' : ''}" class="muted">Inbox</a> / <h1>${who}</h1> ${statusBadge(c.status)} ${test ? testBadge : ''}
        <div class="muted">${c.channel} · ${agent ? html`agent <a href="/console/agents/${agent.id}">${agent.name}</a>` : html`<span data-no-agent>no agent: the team answers</span>`} · <span class="mono">${c.id}</span> ${c.tags.map((t) => html`<span class="tag">${t}</span> `)}</div></div>
        ${c.status !== 'closed' ? html`<form method="post" action="/console/inbox/${c.id}/close" class="inline">${csrfField(csrf)}<button class="button danger">Close conversation</button></form>` : ''}</div>
      <div class="conversation-layout" data-conversation-live="${c.id}"><div class="conversation-main">
      ${h ? html`<section class="handoff-box"><h2>Handed off to ${h.queue}</h2><p><span class="muted">Why:</span> ${h.reason.replace(/_/g, ' ')}</p>
        <p><span class="muted">Summary:</span> ${h.summary}</p><p><span class="muted">Suggested reply:</span> <span data-suggested>${h.suggested_reply}</span>
        <button type="button" class="link" data-use-suggested>use it</button></p></section>` : ''}
      ${approvalPanels({ runs, agent, csrf })}
      <ol class="transcript" data-transcript>${messages.map((m) => {
        const run = m.run_id && m.role === 'customer' ? runs.get(m.run_id) : undefined;
        return html`<li class="turn turn-${m.role}"><div class="turn-head"><b>${m.role === 'customer' ? who : m.role === 'agent' ? 'Agent' : m.role === 'system' ? (m.kind === 'proactive' ? "The widget's opening message" : 'Notice to the customer') : (m.author?.name ?? 'Support team')}</b> <span class="muted">${m.channel} · ${timeAgo(m.created_at)}</span></div>
          <div class="turn-body">${m.content}</div>
          ${deliveryMark(deliveries.get(m.id))}
          ${m.role === 'customer' && agent ? addToTests(c.id, m.id, csrf) : ''}
          ${run ? html`<details class="run-box"><summary>Run ${run.id} · ${run.status.replace(/_/g, ' ')} · confidence ${scorePercent(run.confidence)}</summary>${runDetails(run, ui)}</details>` : ''}</li>`;
      })}</ol>
      ${c.status !== 'closed'
        ? html`<section class="reply-box"><form method="post" action="/console/inbox/${c.id}/reply">${csrfField(csrf)}
            ${picker ?? ''}<label>Reply as a person <span class="hint">${c.channel === 'chat' ? 'added to the transcript' : `added to the transcript and sent over ${c.channel}`}</span><textarea name="content" rows="3" data-reply required></textarea></label>
            <button class="button primary">Send reply</button></form>
          ${h ? html`<form method="post" action="/console/inbox/${c.id}/handoff/close" class="close-handoff">${csrfField(csrf)}
            <label>Note <span class="hint">why the case is done; control returns to the agent</span><input name="note"></label><button class="button">Close handoff</button></form>` : ''}</section>`
        : html`<p class="muted">This conversation is closed.</p>`}</div>
      ${aside ? html`<aside class="customer-panel" data-customer-panel>${aside}</aside>` : ''}</div>`;
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
