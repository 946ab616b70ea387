import type { AgentObject } from '../../agents/agent.schemas';
import { html, type Html } from '../../platform/html';
import type { IdentitySecretObject, PublishableKeyObject, WidgetSettingsObject } from '../../widget/widget.schemas';
import { nodeJwtExample, pythonJwtExample, widgetSnippet } from '../widget-snippet';
import { csrfField } from './layout';

/**
 * "Install on your website": the tag to paste for each active key (with a copy button) and the origins it
 * answers, the way to the live preview, and how the business's server signs a visitor's JWT (Node and
 * Python, standard libraries only), with the kid of the agent's newest identity secret.
 */
export function installSection(input: { agent: AgentObject; keys: PublishableKeyObject[]; secrets: IdentitySecretObject[]; baseUrl: string; integrity?: string; csrf: string }): Html {
  const base = `/console/agents/${input.agent.id}/website`;
  const active = input.keys.filter((k) => k.revoked_at === null);
  const kid = input.secrets[0]?.id ?? 'idk_…';
  return html`<section data-install><h2>Install on your website</h2>
  <p class="muted">Paste this tag into your site's pages, just before <code>&lt;/body&gt;</code>. It works on the key's allowed origins only.</p>
  ${active.length === 0
    ? html`<p class="empty">Create a publishable key below with your site's origin first.</p>`
    : active.map((k) => html`<div class="card install-key"><h3>${k.name} <span class="muted mono">${k.key.slice(0, 12)}…</span></h3>
      <div class="row snippet-row"><code class="install-snippet" data-snippet data-copy-source>${widgetSnippet({ baseUrl: input.baseUrl, key: k.key, integrity: input.integrity })}</code><button type="button" class="button" data-copy>Copy</button></div>
      <p class="muted">Allowed origins: ${k.allowed_origins.map((o, i) => html`${i > 0 ? ', ' : ''}<span class="mono" data-allowed-origin>${o}</span>`)}</p></div>`)}
  <div class="row"><form method="post" action="${base}/preview" class="inline">${csrfField(input.csrf)}<button class="button">Open the live preview</button></form>
  <span class="hint">a test page this service serves, with the widget on it (its key allows this console's origin)</span></div>
  <details class="jwt-examples"><summary>Signed-in visitors: sign a JWT on your server</summary>
  <p class="muted">Create an identity secret under Visitor identity (shown once), keep it on your server as <code>CONVERSE_IDENTITY_SECRET</code>, and hand the token to the widget's <code>identify(jwt)</code>. The <code>kid</code> below is ${input.secrets[0] ? html`your newest secret's id` : html`the secret's id, shown when you create one`}.</p>
  <h3>Node</h3><pre class="code" data-jwt-example="node">${nodeJwtExample(kid)}</pre>
  <h3>Python</h3><pre class="code" data-jwt-example="python">${pythonJwtExample(kid)}</pre>
  </details>
  </section>`;
}

/**
 * The live preview: a plain page on this service's origin with the widget's tag, as a business's page
 * would carry it, and the agent's current settings. `key` is a key that allows this origin; without one,
 * a button makes it.
 */
export function previewPage(input: { agent: AgentObject; key?: PublishableKeyObject; settings: WidgetSettingsObject; csrf: string; error?: string }): string {
  const base = `/console/agents/${input.agent.id}/website`;
  const body = input.key
    ? html`<p>This page stands in for your website: the chat ${input.settings.position === 'bottom-left' ? 'bottom left' : 'bottom right'} is the widget, talking to <b>${input.agent.name}</b> with the key <code>${input.key.key}</code>. Conversations started here are real ${input.key.livemode ? 'live' : 'test'}-mode conversations and show in the inbox.</p>
      <p class="muted">Theme ${input.settings.theme_color} · greeting ${input.settings.greeting ? html`“${input.settings.greeting}”` : 'none'} · proactive message ${input.settings.proactive ? html`after ${input.settings.proactive.delay_seconds} s` : 'none'}</p>
      <script src="/widget.js" data-key="${input.key.key}" async></script>`
    : html`<p>The preview needs a publishable key that allows this page's origin.</p>
      ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
      <form method="post" action="${base}/preview">${csrfField(input.csrf)}<button>Create a preview key and open the preview</button></form>`;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Widget preview: ${input.agent.name}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1e293b;background:#f8fafc}header{background:#fff;border-bottom:1px solid #e2e8f0;padding:1rem 2rem;display:flex;justify-content:space-between;align-items:center}main{max-width:46rem;margin:2rem auto;padding:0 1.5rem}.muted{color:#64748b}.error{color:#b91c1c}.placeholder{height:.8rem;background:#e2e8f0;border-radius:4px;margin:.6rem 0}code{background:#eef2ff;padding:.1rem .3rem;border-radius:4px;word-break:break-all}</style></head>
<body data-widget-preview><header><b>Your website</b><a href="${base}">Back to the console</a></header>
<main><h1>Widget preview</h1>${body}
<div class="placeholder" style="width:90%"></div><div class="placeholder" style="width:75%"></div><div class="placeholder" style="width:82%"></div></main>
</body></html>`.toString();
}
