import { html, type Html } from '../../platform/html';
import type { Role } from '../../domain/roles';

export interface LayoutSession {
  accountName: string;
  mode: 'test' | 'live';
  csrfToken: string;
  /** The sign-in's role: the page hides what it cannot do (`data-needs-role`), the server refuses it anyway. */
  role?: Role;
  /** The teammate's name (null: a key sign-in). */
  displayName?: string | null;
}

const NAV = [
  ['', 'Home'],
  ['agents', 'Agents'],
  ['knowledge', 'Knowledge'],
  ['inbox', 'Inbox'],
  ['numbers', 'Numbers'],
  ['email', 'Email'],
  ['calls', 'Calls'],
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['team', 'Team'],
] as const;

export type NavSection = (typeof NAV)[number][0];

/** The console's page frame: navigation, the account and mode, and the CSRF token forms and scripts use. */
export function layout(input: { title: string; session?: LayoutSession; active?: NavSection; body: Html; notice?: string; error?: string }): string {
  const { session } = input;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${input.title} · Converse console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${session ? html`<meta name="csrf-token" content="${session.csrfToken}">` : ''}
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
<script src="/console/assets/inbox.js" defer></script></head>
<body${session?.role ? html` data-role="${session.role}"` : ''}>
<header class="top">
  <a class="brand" href="/console">Converse</a>
  ${session
    ? html`<nav>${NAV.map(([key, label]) => html`<a href="/console/${key}" class="${key === input.active ? 'active' : ''}">${label}</a>`)}</nav>
  <div class="who"><span class="mode mode-${session.mode}" title="${session.mode === 'test' ? 'Test data: test keys, sandbox carriers' : 'Live data'}">${session.mode === 'test' ? 'Test mode' : 'Live'}</span>
  <span>${session.accountName}</span>
  ${session.role ? html`<span class="who-me" data-who>${session.displayName ?? 'Key sign-in'} · <span class="tag" data-my-role>${session.role}</span></span>` : ''}
  <form method="post" action="/console/sign-out" class="inline"><input type="hidden" name="_csrf" value="${session.csrfToken}"><button class="link">Sign out</button></form></div>`
    : ''}
</header>
<main>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
${input.error ? html`<p class="error-banner" role="alert">${input.error}</p>` : ''}
${input.body}
</main>
</body></html>`.value;
}

/** A hidden CSRF field for a form. */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

export const statusBadge = (status: string) => html`<span class="badge badge-${status}">${status.replace(/_/g, ' ')}</span>`;

export function timeAgo(iso: string | Date | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  const s = Math.round((Date.now() - d.getTime()) / 1000);
  const text = s < 60 ? `${Math.max(s, 0)}s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : s < 86400 ? `${Math.round(s / 3600)} h ago` : d.toISOString().slice(0, 10);
  return html`<time datetime="${d.toISOString()}" title="${d.toISOString()}">${text}</time>`;
}
