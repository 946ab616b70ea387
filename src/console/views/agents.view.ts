import type { AgentObject } from '../../agents/agent.schemas';
import { RESOLUTION_QUESTION_LOCALES, type AgentForm, type FieldErrors, type ToolForm } from '../agent-form';
import { DEFAULT_RESOLUTION_QUESTIONS } from '../../conversations/resolution-question';
import { html, type Html } from '../../platform/html';
import type { RunObject } from '../../runs/run.schemas';
import { csrfField, statusBadge, timeAgo } from './layout';
import { runDetails } from './run.view';
import { CONVERSATION_CHANNELS } from '../../domain/channels';

const resolution = (r: number | null) => (r === null ? '—' : `${Math.round(r * 1000) / 10} %`);
const err = (errors: FieldErrors, field: string) => (errors[field] ? html`<div class="field-error" data-field="${field}">${errors[field]}</div>` : '');
const invalid = (errors: FieldErrors, field: string) => (errors[field] ? 'invalid' : '');

/** The agents list; `week`: each agent's conversations and resolution rate of the last 7 days (analytics). */
export function agentsList(agents: AgentObject[], week: Map<string, { conversations: number; resolution_rate: number | null }> = new Map()): Html {
  return html`<div class="page-head"><h1>Agents</h1>
  <a class="button primary" href="/console/agents/new">New agent</a></div>
  ${agents.length === 0
    ? html`<p class="empty">No agents yet. An agent answers your customers from your knowledge and calls your tools. <a href="/console/agents/new">Create one</a>.</p>`
    : html`<table class="list"><thead><tr><th>Name</th><th>Status</th><th>Live version</th><th>Channels</th><th title="Conversations that started in the last 7 days">Conversations (7 d)</th><th title="Resolved (confirmed + assumed) / conversations the agent answered, last 7 days">Resolution (7 d)</th><th>Updated</th></tr></thead><tbody>
    ${agents.map((a) => html`<tr><td><a href="/console/agents/${a.id}">${a.name}</a><div class="muted mono">${a.id}</div></td><td>${statusBadge(a.status)}</td>
      <td>${a.version || '—'}</td><td>${a.channels.join(', ')}</td><td>${week.get(a.id)?.conversations ?? 0}</td>
      <td>${resolution(week.get(a.id)?.resolution_rate ?? null)} <a class="muted" href="/console/agents/${a.id}/analytics">analytics</a></td><td>${timeAgo(a.updated_at)}</td></tr>`)}
    </tbody></table>`}`;
}

function toolFieldset(t: ToolForm, i: number | string, errors: FieldErrors): Html {
  const f = (k: string) => `tools.${i}.${k}`;
  return html`<fieldset class="tool" data-tool>
  <legend>Tool <button type="button" class="link danger" data-remove-tool>remove</button></legend>
  <div class="grid2">
    <label>Name <input name="${f('name')}" value="${t.name}" class="${invalid(errors, f('name'))}" placeholder="lookup_order" required>${err(errors, f('name'))}</label>
    <label>Endpoint (HTTPS) <input name="${f('endpoint')}" value="${t.endpoint}" class="${invalid(errors, f('endpoint'))}" placeholder="https://api.example.com/tools/lookup_order" required>${err(errors, f('endpoint'))}</label>
  </div>
  <label>Description <span class="hint">the agent reads it to decide when to call the tool</span>
    <input name="${f('description')}" value="${t.description}" class="${invalid(errors, f('description'))}" required>${err(errors, f('description'))}</label>
  <label>Parameters <span class="hint">JSON Schema of the arguments</span>
    <textarea name="${f('parameters')}" rows="5" class="mono ${invalid(errors, f('parameters'))}" spellcheck="false">${t.parameters}</textarea>${err(errors, f('parameters'))}</label>
  <div class="row">
    <label>Timeout (ms) <input name="${f('timeout_ms')}" value="${t.timeout_ms}" type="number" min="100" max="60000" class="short ${invalid(errors, f('timeout_ms'))}">${err(errors, f('timeout_ms'))}</label>
    <label class="check"><input type="checkbox" name="${f('idempotent')}" value="1" ${t.idempotent ? 'checked' : ''}> Idempotent <span class="hint">(retried once on network errors)</span></label>
    <label class="check"><input type="checkbox" name="${f('approval')}" value="1" ${t.approval ? 'checked' : ''}> Needs approval <span class="hint">(a person approves each call)</span></label>
    <label>Approvers <span class="hint">roles, comma-separated (empty: agent and above)</span><input name="${f('approver_roles')}" value="${t.approver_roles}" placeholder="admin, owner" class="short ${invalid(errors, f('approver_roles'))}">${err(errors, f('approver_roles'))}</label>
  </div>
</fieldset>`;
}

export const emptyTool: ToolForm = { name: '', description: '', parameters: '{\n  "type": "object",\n  "properties": {},\n  "required": []\n}', endpoint: '', timeout_ms: '10000', idempotent: false, approval: false, approver_roles: '' };

/** The draft editor: every field of the agent's config, with its validation message next to it. */
export function agentEditor(input: { action: string; form: AgentForm; errors: FieldErrors; bases: { id: string; name: string }[]; csrf: string; submitLabel: string }): Html {
  const { form, errors } = input;
  const kb = new Map(form.knowledge_bases.map((k) => [k.id, k.filter]));
  return html`<form method="post" action="${input.action}" class="editor" novalidate>${csrfField(input.csrf)}
  ${errors.form ? html`<p class="error-banner">${errors.form}</p>` : ''}
  ${Object.keys(errors).length ? html`<p class="error-banner" role="alert">The draft was not saved: ${Object.keys(errors).length} field${Object.keys(errors).length > 1 ? 's need' : ' needs'} fixing (marked below).</p>` : ''}
  <section><h2>Basics</h2>
  <label>Name <input name="name" value="${form.name}" class="${invalid(errors, 'name')}" required>${err(errors, 'name')}</label>
  <div class="row"><span class="label">Channels</span>${CONVERSATION_CHANNELS.map(
    (c) => html`<label class="check"><input type="checkbox" name="channels" value="${c}" ${form.channels.includes(c) ? 'checked' : ''}> ${c}</label>`,
  )}${err(errors, 'channels')}</div>
  <label>Locales <span class="hint">comma-separated, e.g. en, fr</span><input name="locales" value="${form.locales}" class="${invalid(errors, 'locales')}">${err(errors, 'locales')}</label>
  <label>Instructions <span class="hint">how the agent should behave (used by LLM planners)</span><textarea name="instructions" rows="4">${form.instructions}</textarea>${err(errors, 'instructions')}</label>
  </section>
  <section><h2>Knowledge</h2>
  ${input.bases.length === 0 ? html`<p class="muted">No knowledge bases yet: <a href="/console/knowledge">create one</a>.</p>` : ''}
  ${input.bases.map((b) => html`<div class="kb-choice"><label class="check"><input type="checkbox" name="kb" value="${b.id}" ${kb.has(b.id) ? 'checked' : ''}> ${b.name} <span class="muted mono">${b.id}</span></label>
    <label class="sub">Metadata filter <span class="hint">JSON, e.g. {"locale": "en"}; empty for all sources</span>
    <input name="kb_filter.${b.id}" value="${kb.get(b.id) ?? ''}" class="mono ${invalid(errors, `kb_filter.${b.id}`)}">${err(errors, `kb_filter.${b.id}`)}</label></div>`)}
  ${err(errors, 'knowledge_bases')}
  <label class="check"><input type="checkbox" name="retrieval_required" value="1" ${form.retrieval_required ? 'checked' : ''}> Retrieval required <span class="hint">never answer a knowledge question without a source (hand off instead)</span></label>
  <label>Locale filter key <span class="hint">optional: filter sources on this metadata key with the customer's locale</span><input name="locale_filter_key" value="${form.locale_filter_key}" class="short">${err(errors, 'locale_filter_key')}</label>
  <label class="check"><input type="checkbox" name="locale_fallback" value="1" ${form.locale_fallback ? 'checked' : ''}> Locale fallback <span class="hint">when the locale filter leaves no source for the customer's locale, answer from the agent's other locales (saying so)</span></label>
  </section>
  <section><h2>Tools</h2>${err(errors, 'tools')}
  <div data-tools>${form.tools.map((t, i) => toolFieldset(t, i, errors))}</div>
  <template data-tool-template>${toolFieldset(emptyTool, '__i__', {})}</template>
  <button type="button" class="button" data-add-tool>Add a tool</button>
  </section>
  <section><h2>Guardrails and handoff</h2>
  <label>Restricted topics <span class="hint">one per line; the agent will not discuss them</span><textarea name="restricted_topics" rows="3" class="${invalid(errors, 'restricted_topics')}">${form.restricted_topics}</textarea>${err(errors, 'restricted_topics')}</label>
  <label>On a restricted topic <select name="restricted_topic_action">${['handoff', 'refuse'].map((v) => html`<option value="${v}" ${form.restricted_topic_action === v ? 'selected' : ''}>${v === 'handoff' ? 'hand off to a person' : 'refuse politely'}</option>`)}</select></label>
  <div class="grid2">
  <label>Confidence floor <span class="hint">a probability (0.5: 50 % sure the quoted passage answers); below it the agent hands off</span><input name="confidence_floor" value="${form.confidence_floor}" type="number" step="0.01" min="0" max="1" class="short ${invalid(errors, 'confidence_floor')}">${err(errors, 'confidence_floor')}</label>
  <label>Handoff queue <input name="default_queue" value="${form.default_queue}" class="${invalid(errors, 'default_queue')}">${err(errors, 'default_queue')}</label>
  </div>
  <label class="check"><input type="checkbox" name="on_low_confidence" value="1" ${form.on_low_confidence ? 'checked' : ''}> Hand off when confidence is below the floor <span class="hint">(otherwise answer with a guardrail note)</span></label>
  <div class="grid2">
  <label>Handoff notice <span class="hint">what the customer is told, one <code>locale: text</code> per line; empty: "Thanks — a member of our team will reply here." (en, de, fr, es)</span><textarea name="handoff_notice" rows="3" class="${invalid(errors, 'handoff_notice')}">${form.handoff_notice}</textarea>${err(errors, 'handoff_notice')}</label>
  <label>After hours <span class="hint">outside the queue's business hours (Settings → Queues); <code>{{back_at}}</code> becomes "Monday at 09:00"</span><textarea name="handoff_notice_after_hours" rows="3" class="${invalid(errors, 'handoff_notice_after_hours')}">${form.handoff_notice_after_hours}</textarea>${err(errors, 'handoff_notice_after_hours')}</label>
  </div>
  <fieldset class="resolution-question" data-resolution-question><legend>Resolution question</legend>
  <label class="check"><input type="checkbox" name="resolution_question" value="1" ${form.resolution_question ? 'checked' : ''}> Ask after each answer on SMS and email <span class="hint">a plain yes back counts as a confirmed resolution and starts no run (chat has a thumbs-up)</span></label>${err(errors, 'resolution_question')}
  <div>${RESOLUTION_QUESTION_LOCALES.map(
    (l) => html`<label>${l} <span class="hint">one line; empty: the default shown</span><input name="resolution_question_text.${l}" value="${form.resolution_question_text[l] ?? ''}" placeholder="${DEFAULT_RESOLUTION_QUESTIONS[l] ?? ''}" maxlength="160" class="${invalid(errors, `resolution_question_text.${l}`)}">${err(errors, `resolution_question_text.${l}`)}</label>`,
  )}</div>
  <input type="hidden" name="resolution_question_text.other" value="${JSON.stringify(Object.fromEntries(Object.entries(form.resolution_question_text).filter(([k]) => !(RESOLUTION_QUESTION_LOCALES as readonly string[]).includes(k))))}">
  </fieldset>
  <label class="check"><input type="checkbox" name="require_passing_evaluation" value="1" ${form.require_passing_evaluation ? 'checked' : ''}> Require a passing evaluation to publish <span class="hint">(the draft's latest evaluation must be current and have no regression: see the Tests tab)</span></label>
  <div class="grid2">
  <label>Approval wait (s) <input name="approval_seconds" value="${form.approval_seconds}" type="number" class="short ${invalid(errors, 'approval_seconds')}">${err(errors, 'approval_seconds')}</label>
  <label>Async tool result wait (s) <input name="tool_result_seconds" value="${form.tool_result_seconds}" type="number" class="short ${invalid(errors, 'tool_result_seconds')}">${err(errors, 'tool_result_seconds')}</label>
  </div>
  </section>
  <div class="actions sticky"><button class="button primary" type="submit">${input.submitLabel}</button></div>
</form>`;
}

/** The agent page: header with publish, the editor, and the test chat beside it. */
export function agentPage(input: {
  agent: AgentObject;
  liveVersion: number | null;
  draftChanged: boolean;
  editor: Html;
  csrf: string;
}): Html {
  const { agent } = input;
  return html`<div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> /
  <h1>${agent.name}</h1> ${statusBadge(agent.status)} ${input.liveVersion ? html`<span class="muted">live: version ${input.liveVersion}</span>` : html`<span class="muted">never published</span>`}
  <div class="muted mono">${agent.id}</div></div>
  <div class="head-actions">
    <a class="button" href="/console/agents/${agent.id}/analytics">Analytics</a>
    <a class="button" href="/console/agents/${agent.id}/versions">Versions</a>
    <a class="button" href="/console/agents/${agent.id}/tests">Tests</a>
    <a class="button" href="/console/agents/${agent.id}/gaps">Knowledge gaps</a>
    <a class="button" href="/console/agents/${agent.id}/website">Website chat</a>
    <form method="post" action="/console/agents/${agent.id}/publish" class="inline">${csrfField(input.csrf)}
      <button class="button primary" ${input.draftChanged || !input.liveVersion ? '' : 'disabled title="The draft is the live version"'}>${input.liveVersion ? `Publish draft as version ${input.liveVersion + 1}` : 'Publish (go live)'}</button></form>
  </div></div>
  ${input.draftChanged && input.liveVersion ? html`<p class="notice">The draft has changes that are not live yet. Try them in the test chat, then publish.</p>` : ''}
  <div class="agent-layout">
    <div class="agent-editor">${input.editor}</div>
    <aside class="test-chat" data-test-chat data-agent-id="${agent.id}">
      <div class="chat-head"><h2>Test chat</h2><span class="hint">runs the saved draft with its knowledge and tools</span> <button type="button" class="link" data-new-chat>New chat</button></div>
      <div class="chat-log" data-chat-log aria-live="polite"><p class="muted chat-empty">Ask something a customer would ask, e.g. “How do I reset my password?”</p></div>
      <form class="chat-input" data-chat-form><input name="content" placeholder="Type a customer message…" autocomplete="off" required><button class="button primary">Send</button></form>
    </aside>
  </div>`;
}

export function newAgentPage(editor: Html): Html {
  return html`<div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> / <h1>New agent</h1></div></div>
  <p class="muted">Save the draft first; then try it in the test chat and publish it when it answers well.</p>${editor}`;
}

/** Versions and the difference between two of them (or the draft). */
export function versionsPage(input: {
  agent: AgentObject;
  versions: { version: number; published_at: string }[];
  a?: string;
  b?: string;
  diff?: { path: string; a: string; b: string }[];
}): Html {
  const opts = (sel?: string) => html`<option value="draft" ${sel === 'draft' ? 'selected' : ''}>draft</option>${input.versions.map((v) => html`<option value="${v.version}" ${sel === String(v.version) ? 'selected' : ''}>version ${v.version}</option>`)}`;
  return html`<div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> / <a href="/console/agents/${input.agent.id}">${input.agent.name}</a> / <h1>Versions</h1></div></div>
  <table class="list"><thead><tr><th>Version</th><th>Published</th></tr></thead><tbody>
  ${input.versions.map((v) => html`<tr><td>version ${v.version}${v.version === input.agent.version ? html` <span class="badge badge-live">live</span>` : ''}</td><td>${timeAgo(v.published_at)}</td></tr>`)}
  </tbody></table>
  ${input.versions.length === 0 ? html`<p class="empty">Not published yet.</p>` : ''}
  <h2>Compare</h2>
  <form method="get" class="row"><select name="a">${opts(input.a)}</select> with <select name="b">${opts(input.b)}</select><button class="button">Compare</button></form>
  ${input.diff
    ? input.diff.length
      ? html`<table class="list diff"><thead><tr><th>Field</th><th>${input.a === 'draft' ? 'draft' : `version ${input.a}`}</th><th>${input.b === 'draft' ? 'draft' : `version ${input.b}`}</th></tr></thead><tbody>
      ${input.diff.map((d) => html`<tr><td class="mono">${d.path}</td><td class="del"><pre>${d.a}</pre></td><td class="ins"><pre>${d.b}</pre></td></tr>`)}</tbody></table>`
      : html`<p class="muted">No differences.</p>`
    : ''}`;
}

/** Field-by-field differences of two configs (dotted paths; tools by name). */
export function diffConfigs(a: unknown, b: unknown): { path: string; a: string; b: string }[] {
  const flat = (v: unknown, prefix: string, out: Map<string, string>) => {
    if (Array.isArray(v) && v.every((x) => x && typeof x === 'object' && 'name' in (x as object))) {
      for (const item of v as { name: string }[]) flat(item, `${prefix}[${item.name}]`, out);
      if (v.length === 0) out.set(prefix, '[]');
    } else if (v && typeof v === 'object' && !Array.isArray(v)) {
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) out.set(prefix, '{}');
      for (const [k, x] of entries) flat(x, prefix ? `${prefix}.${k}` : k, out);
    } else out.set(prefix, typeof v === 'string' ? v : JSON.stringify(v));
    return out;
  };
  const fa = flat(a, '', new Map());
  const fb = flat(b, '', new Map());
  const paths = [...new Set([...fa.keys(), ...fb.keys()])].sort();
  return paths.filter((p) => fa.get(p) !== fb.get(p)).map((p) => ({ path: p, a: fa.get(p) ?? '(none)', b: fb.get(p) ?? '(none)' }));
}

/** What a finished run did, as the fragment the test chat places under the reply (or instead of one). */
export const testChatRunPanel = (run: RunObject, ui: { uiUrl: string; namespace: string }, notice?: { content: string; conversationId: string }): Html =>
  html`${notice ? html`<div class="bubble system" data-handoff-notice><span class="hint">The customer is told</span><br>${notice.content}</div>` : ''}${run.reply ? '' : html`<p class="muted">No reply: ${run.handoff ? 'handed off to a person.' : run.status.replace(/_/g, ' ')}</p>`}
  ${run.handoff && notice ? html`<div class="chat-after-handoff" data-after-handoff><button type="button" class="button" data-continue-as-customer>Continue as the customer</button>
    <button type="button" class="button" data-new-chat-after>New chat</button> <a href="/console/inbox/${notice.conversationId}" target="_blank" rel="noopener">Open in the inbox</a>
    <p class="hint">Your next messages go to the person who takes over (the inbox's test view), not to the agent.</p></div>` : ''}${runDetails(run, ui)}`;
