import type { AgentObject } from '../../agents/agent.schemas';
import type { EvaluationObject, TestCaseObject } from '../../evaluations/evaluation.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';
import { scorePercent, temporalRunUrl } from './run.view';

/** A Temporal Web UI link to a run's workflow history. */
const runLink = (runId: string, ui: { uiUrl: string; namespace: string }) =>
  html`<a class="mono" href="${temporalRunUrl(ui, runId)}" target="_blank" rel="noopener noreferrer">${runId}</a>`;

const expectationsOf = (c: TestCaseObject) => [...new Set(c.turns.flatMap((t) => Object.keys(t.expect ?? {})))].join(', ') || 'none';

const EXAMPLE_CASE = `name: Shipping time
channel: chat
turns:
  - customer: How long does shipping take?
    expect:
      reply: { cites: { title: Shipping }, contains_one_of: [3 to 5 business days] }
`;

/** The agent's Tests tab: its cases (add, edit, delete, import), "Run against draft", its evaluations. */
export function testsPage(input: {
  agent: AgentObject;
  cases: TestCaseObject[];
  evaluations: EvaluationObject[];
  csrf: string;
  editing?: { id: string; yaml: string };
  draftYaml?: string;
  error?: string;
}): Html {
  const { agent, cases } = input;
  return html`<div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> / <a href="/console/agents/${agent.id}">${agent.name}</a> / <h1>Tests</h1>
    <div class="muted">Scripted customer conversations and what must happen. An evaluation runs them in hidden test conversations; tool calls are answered from each case's declared results.</div></div>
    <div class="head-actions"><form method="post" action="/console/agents/${agent.id}/evaluations" class="inline">${csrfField(input.csrf)}
      <button class="button primary" data-run-evaluation ${cases.length ? '' : 'disabled'}>Run against draft</button></form></div></div>
  ${input.error ? html`<p class="error-banner" role="alert" data-test-error>${input.error}</p>` : ''}
  <section><h2>Test cases (${cases.length})</h2>
  ${cases.length === 0
    ? html`<p class="empty">No test cases yet. Add one below, import the <code>tests:</code> of an agent file, or use “Add to tests” on a customer turn in the inbox.</p>`
    : html`<table class="list" data-test-cases><thead><tr><th>Name</th><th>Channel</th><th>Turns</th><th>Expects</th><th></th></tr></thead><tbody>
    ${cases.map((c) => html`<tr data-case="${c.name}"><td>${c.name}<div class="muted mono">${c.id}</div></td><td>${c.channel}</td><td>${c.turns.length}</td><td>${expectationsOf(c)}</td>
      <td><a href="/console/agents/${agent.id}/tests?edit=${c.id}">edit</a>
      <form method="post" action="/console/agents/${agent.id}/tests/${c.id}/delete" class="inline">${csrfField(input.csrf)}<button class="link danger">delete</button></form></td></tr>`)}
    </tbody></table>`}
  </section>
  ${input.editing
    ? html`<section><h2>Edit test case</h2><form method="post" action="/console/agents/${agent.id}/tests/${input.editing.id}">${csrfField(input.csrf)}
      <textarea name="yaml" rows="14" class="mono" spellcheck="false">${input.editing.yaml}</textarea><button class="button primary">Save test case</button></form></section>`
    : ''}
  <section><h2>Add a test case</h2><form method="post" action="/console/agents/${agent.id}/tests" data-add-case>${csrfField(input.csrf)}
    <label>YAML <span class="hint">one case: name, channel, turns (customer, expect), tool_results; see examples/agents/support-agent.yaml</span>
    <textarea name="yaml" rows="10" class="mono" spellcheck="false">${input.draftYaml ?? EXAMPLE_CASE}</textarea></label>
    <button class="button">Add test case</button></form></section>
  <section><h2>Import from YAML</h2><form method="post" action="/console/agents/${agent.id}/tests/import">${csrfField(input.csrf)}
    <label>An agent file, or its <code>tests:</code> list <span class="hint">cases are added, or replaced when the name exists; nothing is deleted</span>
    <textarea name="yaml" rows="6" class="mono" spellcheck="false"></textarea></label><button class="button">Import</button></form></section>
  <section><h2>Evaluations</h2>
  ${input.evaluations.length === 0
    ? html`<p class="empty">No evaluations yet.</p>`
    : html`<table class="list"><thead><tr><th>Evaluation</th><th>Version</th><th>Status</th><th>Passed</th><th>Against live</th><th>Started</th></tr></thead><tbody>
    ${input.evaluations.map((e) => html`<tr><td><a href="/console/agents/${agent.id}/evaluations/${e.id}">${e.id}</a></td><td>${e.version === 'draft' ? 'draft' : `version ${e.version}`}</td>
      <td>${statusBadge(e.status === 'running' ? 'running' : e.passed ? 'passed' : 'failed')}</td><td>${e.passed_count} of ${e.case_count}</td>
      <td>${e.comparison?.baseline_version ? `${e.comparison.regressions.length} regressions, ${e.comparison.fixes.length} fixes` : '—'}</td><td>${timeAgo(e.created_at)}</td></tr>`)}
    </tbody></table>`}
  </section>`;
}

/** One evaluation: per case pass or fail, each failed expectation and why, links to the runs, the comparison. */
export function evaluationPage(input: { agent: AgentObject; evaluation: EvaluationObject; ui: { uiUrl: string; namespace: string } }): Html {
  const { agent, evaluation: e } = input;
  const running = e.status === 'running';
  return html`${running ? html`<meta http-equiv="refresh" content="1">` : ''}
  <div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> / <a href="/console/agents/${agent.id}">${agent.name}</a> / <a href="/console/agents/${agent.id}/tests">Tests</a> / <h1>Evaluation</h1>
    <div class="muted mono">${e.id}</div></div></div>
  <p data-evaluation-summary>${running ? `Running: ${e.cases.length} of ${e.case_count} cases done…` : `${e.passed_count} of ${e.case_count} passed`} · ${e.version === 'draft' ? 'the draft as saved when it started' : `version ${e.version}`}
    ${e.comparison?.baseline_version ? html` · against live version ${e.comparison.baseline_version}: <b>${e.comparison.regressions.length} regressions</b>, ${e.comparison.fixes.length} fixes` : ''}</p>
  <table class="list" data-evaluation-results><thead><tr><th>Case</th><th>Result</th><th>Failed expectations</th><th>Runs</th><th>Confidence</th><th>Latency</th><th>Against live</th></tr></thead><tbody>
  ${e.cases.map((c) => html`<tr data-result="${c.name}"><td>${c.name}</td><td>${statusBadge(c.passed ? 'passed' : 'failed')}</td>
    <td>${c.failures.length === 0 ? '—' : html`<ul class="failures">${c.failures.map((f) => html`<li><b>turn ${f.turn} ${f.expectation}</b>: ${f.reason}</li>`)}</ul>`}</td>
    <td>${c.run_ids.map((id) => html`${runLink(id, input.ui)} `)}</td><td>${scorePercent(c.confidence)}</td><td>${c.latency_ms} ms</td>
    <td>${c.comparison ?? '—'}</td></tr>`)}
  </tbody></table>`;
}
