import type { AgentObject } from '../../agents/agent.schemas';
import type { InboxCounts, InboxRow, InboxTab } from '../../conversations/inbox.service';
import { CONVERSATION_CHANNELS } from '../../domain/channels';
import { html, type Html } from '../../platform/html';
import { statusBadge, timeAgo } from './layout';

/** A console test chat: nothing of it reaches a customer. */
export const testBadge = html`<span class="badge badge-test" data-test-badge title="A console test chat: nothing is sent to a customer">test</span>`;

/** The inbox's view as read from the query (each optional but the tab). */
export interface InboxFilter {
  tab: InboxTab;
  channel?: string;
  agent_id?: string;
  tag?: string;
  q?: string;
  test?: '1';
}

/** How the inbox names a customer: name, email, phone or id; else who wrote on which channel. */
export function customerLabel(c: { customer: unknown; channel: string }): string {
  const k = c.customer as Record<string, unknown>;
  const v = k.name ?? k.email ?? k.phone ?? k.id;
  return typeof v === 'string' && v !== '' ? v : `Anonymous ${c.channel} customer`;
}

/** Whether a row (as it is now) belongs in the tab and filters shown (the live stream adds, moves or removes it). */
export function rowInView(row: InboxRow, f: InboxFilter, userId: string | null): boolean {
  if (row.test !== (f.test === '1')) return false;
  if (f.channel && row.channel !== f.channel) return false;
  if (f.agent_id && row.agent_id !== f.agent_id) return false;
  if (f.tag && !row.tags.includes(f.tag)) return false;
  if (f.tab === 'queue') return row.status === 'handed_off' || row.awaiting_approval;
  if (f.tab === 'mine') return userId !== null && row.assignee_user_id === userId && row.status !== 'closed';
  if (f.tab === 'active' || f.tab === 'closed') return row.status === f.tab;
  return true;
}

/** The key the list is ordered by: the queue by waiting since (oldest first), the rest by last activity. */
export function rowSortKey(row: InboxRow, tab: InboxTab): number {
  if (tab === 'queue') return row.waiting_since ? new Date(row.waiting_since).getTime() : Number.MAX_SAFE_INTEGER;
  return new Date(row.last_message_at ?? row.created_at).getTime();
}

/** One conversation of the list: customer and preview, badges, status, channel, agent, assignee, waiting since. */
export function inboxRow(row: InboxRow, f: InboxFilter, agentNames: Map<string, string>, teammateNames: Map<string, string> = new Map()): Html {
  const h = row.handoff as { reason?: string; queue?: string } | null;
  const preview = row.match ?? row.last_message_preview;
  const from = row.last_message_role === 'customer' ? '' : row.last_message_role === 'system' ? 'Notice: ' : row.last_message_role ? `${row.last_message_role === 'human' ? 'Team' : 'Agent'}: ` : '';
  return html`<tr class="${row.unread_for_reader ? 'unread' : ''}" data-conversation="${row.id}" data-sort="${rowSortKey(row, f.tab)}">
    <td><a href="/console/inbox/${row.id}">${customerLabel(row)}</a> ${row.unread_for_reader ? html`<span class="badge badge-unread" data-unread>unread</span>` : ''}
      ${row.awaiting_approval ? html`<span class="badge badge-approval" data-approval-badge title="A tool call waits for a person's approval">approval</span>` : ''} ${row.test ? testBadge : ''}
      <div class="preview clamp" data-preview>${preview ? html`<span class="muted">${from}</span>${preview}` : html`<span class="muted">no messages yet</span>`}</div></td>
    <td>${statusBadge(row.status)}${h?.queue ? html`<div class="muted">${h.queue} · ${(h.reason ?? '').replace(/_/g, ' ')}</div>` : ''}</td>
    <td>${row.channel}</td>
    <td>${row.agent_id === null ? html`<span class="muted">none (team)</span>` : (agentNames.get(row.agent_id) ?? row.agent_id)}</td>
    <td data-assignee>${(row.assignee_user_id ? teammateNames.get(row.assignee_user_id) : undefined) ?? row.assignee_email ?? html`<span class="muted">unassigned</span>`}</td>
    <td data-waiting>${row.status !== 'closed' && row.waiting_since ? timeAgo(row.waiting_since) : html`<span class="muted">—</span>`}</td>
    <td>${timeAgo(row.last_message_at ?? row.updated_at)}</td></tr>`;
}

const TAB_LABELS: [InboxTab, string][] = [['all', 'All'], ['queue', 'Handoff queue'], ['mine', 'Mine'], ['active', 'Active'], ['closed', 'Closed']];

/** The inbox: tabs with counts (the handoff queue, mine), search, filters, and a page that updates itself. */
export function inboxPage({ f, agents, list, counts, since, teammateNames }: { f: InboxFilter; agents: AgentObject[]; list: { data: InboxRow[]; has_more: boolean }; counts: InboxCounts; since: string; teammateNames: Map<string, string> }): Html {
  const names = new Map(agents.map((a) => [a.id, a.name]));
  const tab = ([key, label]: [InboxTab, string]) =>
    html`<a class="tab ${f.tab === key && !f.test ? 'active' : ''}" href="/console/inbox${key === 'all' ? '' : `?tab=${key}`}" data-tab="${key}">${label} <span class="count" data-count="${key}">${counts[key]}</span></a>`;
  const more = new URLSearchParams(Object.entries({ ...f, starting_after: list.data.at(-1)?.id }).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '' && !(e[0] === 'tab' && e[1] === 'all')));
  const empty = f.q ? 'No conversation mentions that.' : f.test ? 'No test chats yet: try an agent in its test chat.' : f.tab === 'queue' ? 'Nobody is waiting for a person. Conversations the agent hands off appear here.' : f.tab === 'mine' ? 'Nothing is assigned to you. Claim a conversation to work on it.' : 'No conversations match.';
  return html`<div class="page-head"><h1>Inbox <span class="badge badge-unread" data-count="unread" title="unread for you">${counts.unread}</span></h1><div class="head-actions">
      <button type="button" class="button" data-enable-notifications hidden>Turn on notifications</button>
      <a class="button" href="/console/inbox/saved-replies">Saved replies</a><a class="button" href="/console/queues">Queues and business hours</a></div></div>
      <div class="tabs">${TAB_LABELS.map(tab)}<a class="tab ${f.test ? 'active' : ''}" href="/console/inbox?test=1" data-tab-tests>Test chats <span class="count" data-count="test">${counts.test}</span></a></div>
      <form method="get" class="filters row">
        ${f.tab !== 'all' ? html`<input type="hidden" name="tab" value="${f.tab}">` : ''}${f.test ? html`<input type="hidden" name="test" value="1">` : ''}
        <label>Search <input type="search" name="q" value="${f.q ?? ''}" placeholder="words in the transcripts" data-search maxlength="200"></label>
        <label>Channel <select name="channel"><option value="">any</option>${CONVERSATION_CHANNELS.map((c) => html`<option ${f.channel === c ? 'selected' : ''}>${c}</option>`)}</select></label>
        <label>Agent <select name="agent_id"><option value="">any</option>${agents.map((a) => html`<option value="${a.id}" ${f.agent_id === a.id ? 'selected' : ''}>${a.name}</option>`)}</select></label>
        <label>Tag <input name="tag" value="${f.tag ?? ''}" class="short"></label>
        <button class="button">Filter</button></form>
      <p class="empty" data-inbox-empty ${list.data.length === 0 ? '' : 'hidden'}>${empty}</p>
      <table class="list inbox" data-inbox-live="${new URLSearchParams(Object.entries({ tab: f.tab, test: f.test, channel: f.channel, agent_id: f.agent_id, tag: f.tag, since }).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')).toString()}" data-order="${f.tab === 'queue' ? 'asc' : 'desc'}" data-searching="${f.q ? '1' : ''}" ${list.data.length === 0 ? 'hidden' : ''}>
        <thead><tr><th>Customer</th><th>Status</th><th>Channel</th><th>Agent</th><th>Assignee</th><th>Waiting since</th><th>Last message</th></tr></thead>
        <tbody>${list.data.map((row) => inboxRow(row, f, names, teammateNames))}</tbody></table>
      ${list.has_more ? html`<p><a class="button" href="?${more.toString()}">Older</a></p>` : ''}`;
}
