import { html, type Html } from '../../platform/html';
import type { Role } from '../../domain/roles';
import { csrfField, statusBadge, timeAgo } from './layout';
import { layout } from './layout';

interface TeammateRow { id: string; email: string; displayName: string; role: Role; disabled: boolean; createdAt: Date }
interface InviteRow { id: string; email: string; role: Role; expiresAt: Date }

const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, owners included',
  admin: 'setup: agents, knowledge, numbers, webhooks, keys, teammates',
  agent: 'the inbox: replies, handoffs, approvals, test chats',
  viewer: 'reads everything, changes nothing',
};

/** The Team page: teammates (role, disable, remove), open invites, and the invite form (a new link shown once to copy). */
export function teamPage(input: { teammates: TeammateRow[]; invites: InviteRow[]; grantable: readonly Role[]; csrf: string; me: string | null; link?: { url: string; email: string; emailed: boolean; sandbox?: boolean } }): Html {
  const { csrf } = input;
  const roleSelect = (name: string, current?: Role) => html`<select name="${name}" aria-label="Role">${input.grantable.map((r) => html`<option value="${r}" ${r === current ? 'selected' : ''}>${r}</option>`)}</select>`;
  return html`<div class="page-head"><div><h1>Team</h1><div class="muted">Everyone who signs in to this account's console, with what their role lets them do.</div></div></div>
    ${input.link ? html`<div class="secret-once" role="status" data-invite-link><b>Invite link for ${input.link.email}.</b> ${input.link.emailed ? 'It was emailed to them too.' : input.link.sandbox ? 'Signed in with a test key: invites are not emailed, send them this link yourself.' : 'Email is not configured: send them this link yourself.'} It works once and is shown only this once.
      <div class="invite-link"><code data-secret>${input.link.url}</code><button type="button" class="button" data-copy>Copy</button></div></div>` : ''}
    <table class="list" data-team><thead><tr><th>Teammate</th><th>Role</th><th>Status</th><th>Since</th><th></th></tr></thead><tbody>
    ${input.teammates.length === 0 ? html`<tr><td colspan="5" class="muted">No teammates yet: invite the first below.</td></tr>` : ''}
    ${input.teammates.map((t) => html`<tr data-teammate="${t.id}" class="${t.disabled ? 'revoked' : ''}"><td><b>${t.displayName}</b>${t.id === input.me ? html` <span class="tag">you</span>` : ''}<div class="muted">${t.email}</div></td>
      <td><form method="post" action="/console/team/${t.id}/role" class="row" data-needs-role="admin">${csrfField(csrf)}${roleSelect('role', t.role)}<button class="link">Change</button></form>
        <span class="tag" data-role-of="${t.id}">${t.role}</span> <span class="hint">${ROLE_HELP[t.role]}</span></td>
      <td>${t.disabled ? statusBadge('disabled') : statusBadge('active')}</td><td>${timeAgo(t.createdAt)}</td>
      <td><div class="row" data-needs-role="admin">
        <form method="post" action="/console/team/${t.id}/${t.disabled ? 'enable' : 'disable'}" class="inline" ${t.disabled ? '' : html`data-confirm="Disable ${t.email}? Their sessions end at once."`}>${csrfField(csrf)}<button class="link">${t.disabled ? 'Enable' : 'Disable'}</button></form>
        <form method="post" action="/console/team/${t.id}/remove" class="inline" data-confirm="Remove ${t.email} from the team? Their sessions end at once.">${csrfField(csrf)}<button class="link danger">Remove</button></form></div></td></tr>`)}
    </tbody></table>
    ${input.invites.length ? html`<h2>Open invites</h2><table class="list" data-invites><thead><tr><th>Email</th><th>Role</th><th>Expires</th><th></th></tr></thead><tbody>
      ${input.invites.map((i) => html`<tr><td>${i.email}</td><td><span class="tag">${i.role}</span></td><td>${i.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</td>
        <td><form method="post" action="/console/team/invites/${i.id}/revoke" class="inline" data-needs-role="admin">${csrfField(csrf)}<button class="link danger">Revoke</button></form></td></tr>`)}</tbody></table>` : ''}
    <form method="post" action="/console/team/invites" class="card" data-invite-form data-needs-role="admin">${csrfField(csrf)}<h2>Invite a teammate</h2>
      <div class="grid2"><label>Email <input name="email" type="email" required placeholder="sam@example.com"></label>
      <label>Role ${roleSelect('role', input.grantable.includes('agent') ? 'agent' : input.grantable[0])}</label></div>
      <p class="hint">${(['viewer', 'agent', 'admin', 'owner'] as const).map((r) => html`<b>${r}</b>: ${ROLE_HELP[r]}. `)}</p>
      <button class="button primary">Create invite link</button></form>`;
}

/** The page an invite link opens (no session yet): choose a display name and a password. */
export function acceptInvitePage(input: { token: string; invite?: { email: string; role: Role; accountName: string }; error?: string; displayName?: string; status?: number }): string {
  return layout({
    title: 'Accept your invite',
    body: html`<div class="sign-in"><h1>Join ${input.invite?.accountName ?? 'the console'}</h1>
    ${input.error ? html`<p class="error-banner" role="alert">${input.error}</p>` : ''}
    ${input.invite
      ? html`<form method="post" action="/console/invites/${input.token}" class="card" data-accept-form>
      <p>You are invited as <span class="tag">${input.invite.role}</span> with <b>${input.invite.email}</b>.</p>
      <label>Your name <span class="hint">your replies to customers are signed with it</span><input name="display_name" required maxlength="80" autocomplete="name" value="${input.displayName ?? ''}"></label>
      <label>Password <span class="hint">at least 10 characters</span><input name="password" type="password" required minlength="10" autocomplete="new-password"></label>
      <button class="button primary">Join and sign in</button></form>`
      : html`<p><a href="/console/sign-in">Sign in</a></p>`}</div>`,
  });
}
