import type { AgentObject } from '../../agents/agent.schemas';
import { html, type Html } from '../../platform/html';
import type { IdentitySecretObject, PublishableKeyObject, WidgetSettingsObject } from '../../widget/widget.schemas';
import { csrfField, timeAgo } from './layout';
import { installSection } from './widget-install.view';

/**
 * An agent's website chat: how to install the widget, its appearance, its publishable keys (shown plainly: they sit in the web page), allowed origins,
 * the visitor identity requirement and the identity secrets that sign visitors' JWTs (shown once).
 */
export function websitePage(input: {
  agent: AgentObject;
  keys: PublishableKeyObject[];
  secrets: IdentitySecretObject[];
  settings: WidgetSettingsObject;
  mode: 'test' | 'live';
  csrf: string;
  shownOnce?: Html;
  error?: string;
  origins?: string;
  /** Where the service is reached from the web (PUBLIC_BASE_URL): the snippet's script URL. */
  baseUrl: string;
  integrity?: string;
  settingsError?: string;
}): Html {
  const { agent, csrf } = input;
  const base = `/console/agents/${agent.id}/website`;
  return html`<div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> / <a href="/console/agents/${agent.id}">${agent.name}</a> / <h1>Website chat</h1></div></div>
  ${input.shownOnce ?? ''}
  ${installSection({ agent, keys: input.keys, secrets: input.secrets, baseUrl: input.baseUrl, integrity: input.integrity, csrf })}
  ${appearanceForm(base, input.settings, csrf, input.settingsError)}
  <section><h2>Publishable keys</h2>
  <p class="muted">A publishable key lets a web page on one of its allowed origins open chats with this agent for its visitors, and nothing else. It is not secret.</p>
  ${input.keys.length === 0
    ? html`<p class="empty">No publishable key yet.</p>`
    : html`<table class="list"><thead><tr><th>Name</th><th>Key</th><th>Allowed origins</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>
    ${input.keys.map((k) => html`<tr class="${k.revoked_at ? 'revoked' : ''}"><td>${k.name}</td><td class="mono" data-publishable-key>${k.key}</td><td class="mono">${k.allowed_origins.join(' ')}</td>
      <td>${timeAgo(k.created_at)}</td><td>${timeAgo(k.last_used_at)}</td>
      <td>${k.revoked_at ? html`<span class="muted">revoked ${timeAgo(k.revoked_at)}</span>` : html`<form method="post" action="${base}/keys/${k.id}/revoke" class="inline" data-confirm="Revoke this key? Pages using it stop working at once.">${csrfField(csrf)}<button class="link danger">Revoke</button></form>`}</td></tr>`)}
    </tbody></table>`}
  <form method="post" action="${base}/keys" class="card">${csrfField(csrf)}<h3>Create a ${input.mode} publishable key</h3>
    ${input.error ? html`<p class="error-banner" role="alert">${input.error}</p>` : ''}
    <label>Name <input name="name" placeholder="Website" maxlength="100"></label>
    <label>Allowed origins <span class="hint">one per line, exactly scheme://host[:port], e.g. https://shop.example</span>
    <textarea name="allowed_origins" rows="3" class="mono" spellcheck="false" required>${input.origins ?? ''}</textarea></label>
    <button class="button primary">Create key</button></form>
  </section>
  <section><h2>Visitor identity</h2>
  <p class="muted">Your server signs a JWT (HS256, <code>kid</code> = the secret's id, <code>sub</code> = your customer id, <code>exp</code> at most 24 h ahead) for a signed-in visitor; the conversation then follows that customer.</p>
  <form method="post" action="${base}/identity" class="row">${csrfField(csrf)}
    <label class="check"><input type="checkbox" name="required" value="1" ${input.settings.identity === 'required' ? 'checked' : ''}> Require a signed-in visitor <span class="hint">(a visitor without a valid JWT is refused)</span></label>
    <button class="button">Save</button></form>
  <table class="list"><thead><tr><th>Secret (kid)</th><th>Ends</th><th>Created</th><th></th></tr></thead><tbody>
  ${input.secrets.map((s) => html`<tr><td class="mono">${s.id} <span class="muted">…${s.last4}</span></td><td>${s.expires_at ? timeAgo(s.expires_at) : 'when removed'}</td><td>${timeAgo(s.created_at)}</td>
    <td><form method="post" action="${base}/identity_secrets/${s.id}/remove" class="inline" data-confirm="Remove this secret? JWTs it signed stop working at once.">${csrfField(csrf)}<button class="link danger">Remove</button></form></td></tr>`)}
  </tbody></table>
  <form method="post" action="${base}/identity_secrets" class="row">${csrfField(csrf)}
    <label>The other secrets stop working <select name="expire_others"><option value="">when removed</option><option value="86400">in 24 hours</option><option value="3600">in 1 hour</option><option value="0">now</option></select></label>
    <button class="button">New identity secret</button></form>
  </section>`;
}

/** The widget's appearance and behaviour (the API's widget_settings, identity aside: it has its own form). */
function appearanceForm(base: string, s: WidgetSettingsObject, csrf: string, error?: string): Html {
  const p = s.proactive;
  return html`<section><h2>Appearance</h2>
  <form method="post" action="${base}/settings" class="card" data-settings-form>${csrfField(csrf)}
    ${error ? html`<p class="error-banner" role="alert">${error}</p>` : ''}
    <div class="row">
      <label>Theme colour <input type="color" name="theme_color" value="${s.theme_color}"></label>
      <label>Position <select name="position">${(['bottom-right', 'bottom-left'] as const).map((v) => html`<option value="${v}" ${s.position === v ? 'selected' : ''}>${v.replace('-', ' ')}</option>`)}</select></label>
      <label>Keep the visitor's conversation <select name="persistence">
        ${([['local', 'across visits (localStorage)'], ['session', 'in this tab (sessionStorage)'], ['memory', 'on this page only']] as const).map(([v, label]) => html`<option value="${v}" ${s.persistence === v ? 'selected' : ''}>${label}</option>`)}
      </select></label>
    </div>
    <label>Greeting <span class="hint">the first line the open widget shows; empty: none</span>
      <textarea name="greeting" rows="2" maxlength="500">${s.greeting ?? ''}</textarea></label>
    <fieldset><legend><label class="check"><input type="checkbox" name="proactive" value="1" ${p ? 'checked' : ''}> Proactive message</label></legend>
      <label>Message <span class="hint">shown beside the launcher; a chat turn only once the visitor answers</span>
        <input name="proactive_message" maxlength="300" value="${p?.message ?? ''}"></label>
      <div class="row"><label>Delay, seconds <span class="hint">0 to 600</span> <input type="number" name="proactive_delay_seconds" min="0" max="600" value="${p?.delay_seconds ?? 10}"></label>
      <label>On paths starting with <span class="hint">one per line, e.g. /pricing; empty: every page</span>
        <textarea name="proactive_paths" rows="2" class="mono" spellcheck="false">${(p?.paths ?? []).join('\n')}</textarea></label></div>
    </fieldset>
    <button class="button primary">Save</button>
  </form></section>`;
}
