import type { ConversationObject } from '../../conversations/conversation.schemas';
import type { ConversationNoteObject } from '../../conversations/conversation-note.schemas';
import type { SavedReplyObject } from '../../conversations/saved-reply.schemas';
import type { Teammate } from '../../conversations/inbox.service';
import { html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';

/** One of the customer's other conversations, as the panel lists it. */
export interface PastConversation {
  id: string;
  channel: string;
  status: string;
  created_at: Date;
  last_message_preview: string | null;
  test: boolean;
}

/**
 * The conversation page's right column: who the customer is (identity, metadata), who works on it (claim,
 * assign), the team's internal notes, and the customer's other conversations on every channel.
 */
export function conversationAside({ c, teammates, teammateNames, me, notes, past, csrf }: {
  c: ConversationObject & { assignee_user_id: string | null };
  teammates: Teammate[];
  /** Display names (else emails) by user id, for the assignee and the notes' authors. */
  teammateNames: Map<string, string>;
  /** The signed-in teammate (null: a key sign-in, which cannot be assigned). */
  me: string | null;
  notes: ConversationNoteObject[];
  past: PastConversation[];
  csrf: string;
}): Html {
  const k = c.customer as Record<string, string | undefined>;
  const field = (label: string, v: string | undefined) => (v ? html`<dt>${label}</dt><dd>${v}</dd>` : '');
  const assignee = teammates.find((t) => t.id === c.assignee_user_id);
  const meta = Object.entries(c.metadata).filter(([key]) => key !== 'console_test');
  return html`<section class="panel-box" data-customer>
      <h2>Customer</h2>
      <dl class="kv">${field('Name', k.name)}${field('Email', k.email)}${field('Phone', k.phone)}${field('Customer id', k.id)}${field('Locale', k.locale)}
        ${!k.name && !k.email && !k.phone && !k.id ? html`<dt>Identity</dt><dd class="muted">anonymous ${c.channel} customer</dd>` : ''}</dl>
      ${meta.length > 0 ? html`<h3>Metadata</h3><dl class="kv">${meta.map(([key, v]) => html`<dt class="mono">${key}</dt><dd>${v}</dd>`)}</dl>` : ''}
    </section>
    <section class="panel-box" data-assignment>
      <h2>Assignee</h2>
      <p data-assignee-name>${assignee ? (teammateNames.get(assignee.id) ?? assignee.email) : html`<span class="muted">unassigned</span>`}</p>
      ${me && c.assignee_user_id !== me && c.status !== 'closed' ? html`<form method="post" action="/console/inbox/${c.id}/claim" class="inline">${csrfField(csrf)}<button class="button primary" data-claim>Claim</button></form>` : ''}
      ${teammates.length > 0 ? html`<form method="post" action="/console/inbox/${c.id}/assign" class="row" data-assign-form>${csrfField(csrf)}
        <select name="user_id" aria-label="Assign to"><option value="">unassigned</option>${teammates.map((t) => html`<option value="${t.id}" ${t.id === c.assignee_user_id ? 'selected' : ''}>${teammateNames.get(t.id) ?? t.email}</option>`)}</select>
        <button class="button">Assign</button></form>` : html`<p class="hint">No teammates sign in as themselves yet: a key sign-in cannot be assigned.</p>`}
    </section>
    <section class="panel-box" data-notes>
      <h2>Internal notes <span class="hint">only the team sees them</span></h2>
      ${notes.length === 0 ? html`<p class="muted">No notes yet.</p>` : html`<ol class="notes">${notes.map((n) => html`<li class="note" data-note><div class="muted" data-note-author>${(n.author.type === 'console_user' && n.author.id ? teammateNames.get(n.author.id) : undefined) ?? n.author.name} · ${timeAgo(n.created_at)}</div><div class="note-body">${n.body}</div></li>`)}</ol>`}
      <form method="post" action="/console/inbox/${c.id}/notes" data-note-form>${csrfField(csrf)}
        <textarea name="body" rows="2" maxlength="5000" required placeholder="A note for the team (never sent)"></textarea><button class="button">Add note</button></form>
    </section>
    <section class="panel-box" data-past-conversations>
      <h2>Other conversations</h2>
      ${past.length === 0 ? html`<p class="muted">None on any channel.</p>` : html`<ul class="past">${past.map((p) => html`<li><a href="/console/inbox/${p.id}">${p.channel}</a> ${statusBadge(p.status)} <span class="muted">${timeAgo(p.created_at)}</span>
        <div class="muted clamp">${p.last_message_preview ?? ''}</div></li>`)}</ul>`}
    </section>`;
}

/** The saved replies a teammate can insert into the reply (their variables filled in for this conversation). */
export function savedReplyPicker(conversationId: string, replies: SavedReplyObject[]): Html {
  if (replies.length === 0) return html`<p class="hint">No saved replies yet: <a href="/console/inbox/saved-replies">add some</a>.</p>`;
  return html`<div class="row saved-reply-picker" data-saved-replies="${conversationId}"><label>Saved reply <select data-saved-reply-select>${replies.map((r) => html`<option value="${r.id}">${r.name}</option>`)}</select></label>
    <button type="button" class="button" data-saved-reply-insert>Insert</button></div>`;
}

/** The account's saved replies: the list, and a form to add one (variables explained). */
export function savedRepliesPage({ replies, csrf, error, form }: { replies: SavedReplyObject[]; csrf: string; error?: string; form?: { name: string; content: string } }): Html {
  return html`<div class="page-head"><div><a href="/console/inbox" class="muted">Inbox</a> / <h1>Saved replies</h1></div></div>
    ${replies.length === 0 ? html`<p class="empty">No saved replies yet.</p>` : html`<table class="list"><thead><tr><th>Name</th><th>Text</th><th></th></tr></thead><tbody>
      ${replies.map((r) => html`<tr data-saved-reply="${r.id}"><td>${r.name}</td><td class="pre">${r.content}</td><td><form method="post" action="/console/inbox/saved-replies/${r.id}/delete" data-confirm="Delete this saved reply?">${csrfField(csrf)}<button class="link danger">Delete</button></form></td></tr>`)}</tbody></table>`}
    <h2>Add a saved reply</h2>
    ${error ? html`<p class="field-error" data-saved-reply-error>${error}</p>` : ''}
    <form method="post" action="/console/inbox/saved-replies" class="stack" data-saved-reply-form>${csrfField(csrf)}
      <label>Name <input name="name" maxlength="120" required value="${form?.name ?? ''}"></label>
      <label>Text <span class="hint">variables: {{customer.name}}, {{customer.email}}, {{customer.phone}}, {{agent.name}}, {{conversation.id}}; a fallback after a bar: {{customer.name|there}}</span>
        <textarea name="content" rows="4" maxlength="5000" required>${form?.content ?? ''}</textarea></label>
      <button class="button primary">Save</button></form>`;
}
