import type { Router } from 'express';
import { z } from 'zod';
import type { RunObject } from '../runs/run.schemas';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { html } from './html';
import { csrfField, statusBadge, timeAgo } from './views/layout';
import { runDetails } from './views/run.view';
import { scopeOf } from '../domain/principal';

const FilterSchema = z.object({
  status: z.enum(['active', 'handed_off', 'closed']).optional().catch(undefined),
  channel: z.enum(['sms', 'chat', 'email', 'voice']).optional().catch(undefined),
  agent_id: z.string().startsWith('agt_').optional().catch(undefined),
  tag: z.string().min(1).max(100).optional().catch(undefined),
  starting_after: z.string().optional().catch(undefined),
});
const ReplySchema = z.object({ content: z.string().trim().min(1, 'Write a reply first').max(4000) });
const NoteSchema = z.object({ note: z.string().trim().max(2000).default('') });

/** The inbox: conversations by status, channel, agent and tag; the handoff queue; transcripts; human replies. */
export function registerConsoleInboxRoutes(router: Router, { services, config }: ConsoleDeps) {
  const ui = { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace };

  router.get('/inbox', page(async (req, res) => {
    const { session } = sessionOf(res);
    const f = FilterSchema.parse(req.query);
    const agents = (await services.agents.listAgents({ ...scopeOf(session), page: { limit: 100 } })).data;
    const names = new Map(agents.map((a) => [a.id, a.name]));
    const list = await services.conversations.listConversations({
      ...scopeOf(session),
      page: { limit: 50, starting_after: f.starting_after },
      status: f.status, channel: f.channel, agent_id: f.agent_id, tag: f.tag,
    });
    const tab = (label: string, status?: string) =>
      html`<a class="tab ${f.status === status ? 'active' : ''}" href="/console/inbox${status ? `?status=${status}` : ''}">${label}</a>`;
    const queue = f.status === 'handed_off';
    sendPage(res, {
      title: 'Inbox',
      active: 'inbox',
      body: html`<div class="page-head"><h1>Inbox</h1></div>
      <div class="tabs">${tab('All')}${tab('Handoff queue', 'handed_off')}${tab('Active', 'active')}${tab('Closed', 'closed')}</div>
      <form method="get" class="filters row">
        ${f.status ? html`<input type="hidden" name="status" value="${f.status}">` : ''}
        <label>Channel <select name="channel"><option value="">any</option>${['chat', 'sms', 'email', 'voice'].map((c) => html`<option ${f.channel === c ? 'selected' : ''}>${c}</option>`)}</select></label>
        <label>Agent <select name="agent_id"><option value="">any</option>${agents.map((a) => html`<option value="${a.id}" ${f.agent_id === a.id ? 'selected' : ''}>${a.name}</option>`)}</select></label>
        <label>Tag <input name="tag" value="${f.tag ?? ''}" class="short"></label>
        <button class="button">Filter</button></form>
      ${list.data.length === 0
        ? html`<p class="empty">${queue ? 'Nobody is waiting for a person. Conversations the agent hands off appear here.' : 'No conversations match.'}</p>`
        : html`<table class="list inbox"><thead><tr><th>Customer</th><th>Status</th><th>Channel</th><th>Agent</th>${queue ? html`<th>Handoff</th>` : html`<th>Tags</th>`}<th>Updated</th></tr></thead><tbody>
        ${list.data.map((c) => {
          const who = String(c.customer.name ?? c.customer.email ?? c.customer.phone ?? c.customer.id ?? 'Anonymous customer');
          const h = c.handoff as { reason?: string; summary?: string; queue?: string } | null;
          return html`<tr><td><a href="/console/inbox/${c.id}">${who}</a><div class="muted mono">${c.id}</div></td><td>${statusBadge(c.status)}</td><td>${c.channel}</td><td>${names.get(c.agent_id) ?? c.agent_id}</td>
          ${queue ? html`<td><b>${h?.queue ?? ''}</b> · ${(h?.reason ?? '').replace(/_/g, ' ')}<div class="muted clamp">${h?.summary ?? ''}</div></td>` : html`<td>${c.tags.map((t) => html`<span class="tag">${t}</span> `)}</td>`}
          <td>${timeAgo(c.updated_at)}</td></tr>`;
        })}</tbody></table>
        ${list.has_more ? html`<p><a class="button" href="?${new URLSearchParams({ ...(f.status ? { status: f.status } : {}), ...(f.channel ? { channel: f.channel } : {}), ...(f.agent_id ? { agent_id: f.agent_id } : {}), ...(f.tag ? { tag: f.tag } : {}), starting_after: list.data.at(-1)!.id }).toString()}">Older</a></p>` : ''}`}`,
    });
  }));

  router.get('/inbox/:id', page(async (req, res) => {
    const { session } = sessionOf(res);
    const accountId = session.accountId;
    const livemode = session.mode === 'live';
    const c = await services.conversations.getConversation({ accountId, livemode, conversationId: idOf(req) });
    const messages = [];
    let startingAfter: string | undefined;
    for (let i = 0; i < 10; i++) {
      const p = await services.conversations.listMessages({ accountId, livemode, conversationId: c.id, page: { limit: 100, starting_after: startingAfter } });
      messages.push(...p.data);
      if (!p.has_more || p.data.length === 0) break;
      startingAfter = p.data.at(-1)!.id;
    }
    const runs = new Map<string, RunObject>();
    for (const m of messages) if (m.role === 'customer' && m.run_id) runs.set(m.run_id, await services.runs.getRun({ accountId, livemode, runId: m.run_id }));
    const agent = await services.agents.getAgent({ accountId, livemode, agentId: c.agent_id });
    const h = c.handoff as { reason: string; queue: string; summary: string; suggested_reply: string } | null;
    const who = String(c.customer.name ?? c.customer.email ?? c.customer.phone ?? 'Customer');
    const notice = req.query.done === 'reply' ? 'Reply sent.' : req.query.done === 'handoff' ? 'Handoff closed: the agent answers again.' : req.query.done === 'closed' ? 'Conversation closed.' : undefined;
    sendPage(res, {
      title: `Conversation with ${who}`,
      active: 'inbox',
      notice,
      body: html`<div class="page-head"><div><a href="/console/inbox" class="muted">Inbox</a> / <h1>${who}</h1> ${statusBadge(c.status)}
        <div class="muted">${c.channel} · agent <a href="/console/agents/${agent.id}">${agent.name}</a> · <span class="mono">${c.id}</span> ${c.tags.map((t) => html`<span class="tag">${t}</span> `)}</div></div>
        ${c.status !== 'closed' ? html`<form method="post" action="/console/inbox/${c.id}/close" class="inline">${csrfField(session.csrfToken)}<button class="button danger">Close conversation</button></form>` : ''}</div>
      ${h ? html`<section class="handoff-box"><h2>Handed off to ${h.queue}</h2><p><span class="muted">Why:</span> ${h.reason.replace(/_/g, ' ')}</p>
        <p><span class="muted">Summary:</span> ${h.summary}</p><p><span class="muted">Suggested reply:</span> <span data-suggested>${h.suggested_reply}</span>
        <button type="button" class="link" data-use-suggested>use it</button></p></section>` : ''}
      <ol class="transcript">${messages.map((m) => {
        const run = m.run_id && m.role === 'customer' ? runs.get(m.run_id) : undefined;
        return html`<li class="turn turn-${m.role}"><div class="turn-head"><b>${m.role === 'customer' ? who : m.role === 'agent' ? 'Agent' : 'Support team'}</b> <span class="muted">${m.channel} · ${timeAgo(m.created_at)}</span></div>
          <div class="turn-body">${m.content}</div>
          ${run ? html`<details class="run-box"><summary>Run ${run.id} · ${run.status.replace(/_/g, ' ')} · confidence ${run.confidence === null ? '—' : run.confidence.toFixed(2)}</summary>${runDetails(run, ui)}</details>` : ''}</li>`;
      })}</ol>
      ${c.status !== 'closed'
        ? html`<section class="reply-box"><form method="post" action="/console/inbox/${c.id}/reply">${csrfField(session.csrfToken)}
            <label>Reply as a person <span class="hint">${c.channel === 'chat' ? 'added to the transcript' : `added to the transcript and sent over ${c.channel}`}</span><textarea name="content" rows="3" data-reply required></textarea></label>
            <button class="button primary">Send reply</button></form>
          ${h ? html`<form method="post" action="/console/inbox/${c.id}/handoff/close" class="close-handoff">${csrfField(session.csrfToken)}
            <label>Note <span class="hint">why the case is done; control returns to the agent</span><input name="note"></label><button class="button">Close handoff</button></form>` : ''}</section>`
        : html`<p class="muted">This conversation is closed.</p>`}`,
    });
  }));

  router.post('/inbox/:id/reply', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = ReplySchema.parse(req.body);
    await services.conversations.postMessage({ ...scopeOf(session), conversationId: idOf(req), role: 'human', content: body.content });
    res.redirect(303, `/console/inbox/${idOf(req)}?done=reply`);
  }));

  router.post('/inbox/:id/handoff/close', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = NoteSchema.parse(req.body);
    await services.conversations.closeHandoff({ ...scopeOf(session), conversationId: idOf(req), note: body.note });
    res.redirect(303, `/console/inbox/${idOf(req)}?done=handoff`);
  }));

  router.post('/inbox/:id/close', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.conversations.closeConversation({ ...scopeOf(session), conversationId: idOf(req) });
    res.redirect(303, `/console/inbox/${idOf(req)}?done=closed`);
  }));
}
