import type { QueueObject } from '../../conversations/queue.schemas';
import { WEEKDAYS } from '../../conversations/business-hours';
import { html, type Html } from '../../platform/html';
import { csrfField } from './layout';

const DAY_NAMES: Record<string, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

/** A queue as the form shows it (strings as typed, so a bad value is shown back as it was). */
export interface QueueForm {
  id?: string;
  name: string;
  time_zone: string;
  always_open: boolean;
  /** Per weekday: "09:00-12:00, 13:00-17:00"; empty: closed. */
  days: Record<string, string>;
  /** One YYYY-MM-DD per line. */
  holidays: string;
  /** The queue's teammates (console user ids) ticked. */
  teammate_ids: string[];
}

export const queueToForm = (q: QueueObject): QueueForm => ({
  id: q.id,
  name: q.name,
  time_zone: q.time_zone,
  always_open: q.weekly_hours === null,
  days: Object.fromEntries(WEEKDAYS.map((d) => [d, (q.weekly_hours?.[d] ?? []).join(', ')])),
  holidays: q.holidays.join('\n'),
  teammate_ids: q.teammate_ids,
});

export const emptyQueueForm = (): QueueForm => ({
  name: 'support',
  time_zone: 'UTC',
  always_open: false,
  days: Object.fromEntries(WEEKDAYS.map((d) => [d, d === 'sat' || d === 'sun' ? '' : '09:00-17:00'])),
  holidays: '',
  teammate_ids: [],
});

function summary(q: QueueObject): string {
  if (q.weekly_hours === null) return 'always open';
  const open = WEEKDAYS.filter((d) => (q.weekly_hours?.[d] ?? []).length > 0).map((d) => `${d} ${(q.weekly_hours?.[d] ?? []).join(', ')}`);
  return open.length ? open.join(' · ') : 'never open';
}

/** Handoff queues and their business hours: what the handoff notice says outside them. */
export function queuesPage(input: { queues: QueueObject[]; form: QueueForm; csrf: string; error?: string; zones: string[]; teammates: { id: string; email: string }[] }): Html {
  const { form } = input;
  const emails = new Map(input.teammates.map((t) => [t.id, t.email]));
  const people = (q: QueueObject) => (q.teammate_ids.length === 0 ? html`<span class="muted">every teammate</span>` : q.teammate_ids.map((id) => emails.get(id) ?? id).join(', '));
  return html`<div class="page-head"><div><a href="/console/inbox" class="muted">Inbox</a> / <h1>Queues and business hours</h1>
    <div class="muted">An agent hands off to a queue by name (its “Handoff queue”). Outside the queue's hours the customer gets the after-hours notice, which says when the team is back. A queue not listed here is always open.</div></div></div>
  ${input.error ? html`<p class="error-banner" role="alert" data-queue-error>${input.error}</p>` : ''}
  ${input.queues.length === 0
    ? html`<p class="empty">No queues yet: every handoff gets the ordinary notice.</p>`
    : html`<table class="list" data-queues><thead><tr><th>Queue</th><th>Time zone</th><th>Hours</th><th>Holidays</th><th>Team emails to</th><th></th></tr></thead><tbody>
      ${input.queues.map((q) => html`<tr data-queue="${q.name}"><td><b>${q.name}</b><div class="muted mono">${q.id}</div></td><td>${q.time_zone}</td><td>${summary(q)}</td><td>${q.holidays.join(', ') || '—'}</td><td data-queue-teammates>${people(q)}</td>
        <td><a href="/console/queues?edit=${q.id}">edit</a> <form method="post" action="/console/queues/${q.id}/delete" class="inline">${csrfField(input.csrf)}<button class="link danger">delete</button></form></td></tr>`)}
      </tbody></table>`}
  <section><h2>${form.id ? `Edit ${form.name}` : 'Add a queue'}</h2>
  <form method="post" action="/console/queues${form.id ? `/${form.id}` : ''}" data-queue-form>${csrfField(input.csrf)}
    <div class="grid2"><label>Name <span class="hint">as agents name it, e.g. support, billing</span><input name="name" value="${form.name}" required></label>
    <label>Time zone <span class="hint">IANA, e.g. Europe/Paris</span><input name="time_zone" value="${form.time_zone}" list="time-zones" required></label></div>
    <datalist id="time-zones">${input.zones.map((z) => html`<option value="${z}">`)}</datalist>
    <label class="check"><input type="checkbox" name="always_open" value="1" ${form.always_open ? 'checked' : ''}> Always open <span class="hint">(ignore the hours below)</span></label>
    <div class="grid2">${WEEKDAYS.map((d) => html`<label>${DAY_NAMES[d]} <span class="hint">e.g. 09:00-12:00, 13:00-17:00; empty: closed</span><input name="day_${d}" value="${form.days[d] ?? ''}"></label>`)}</div>
    <label>Holidays <span class="hint">closed all day, one date (YYYY-MM-DD) per line</span><textarea name="holidays" rows="3">${form.holidays}</textarea></label>
    <fieldset data-queue-teammate-picker><legend>Teammates <span class="hint">the team emails about this queue's handoffs go to them (an assigned conversation: to its assignee); none ticked: every teammate</span></legend>
      ${input.teammates.length === 0
        ? html`<p class="muted">No teammates yet: invite them on the <a href="/console/team">Team</a> page.</p>`
        : input.teammates.map((t) => html`<label class="check"><input type="checkbox" name="teammate_ids" value="${t.id}" ${form.teammate_ids.includes(t.id) ? 'checked' : ''}> ${t.email}</label>`)}</fieldset>
    <button class="button primary">${form.id ? 'Save queue' : 'Add queue'}</button></form></section>`;
}
