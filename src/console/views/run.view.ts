import type { RunObject } from '../../runs/run.schemas';
import { agentRunWorkflowId } from '../../../workflows/shared/runs.contracts';
import { externalLink, html, type Html } from '../../platform/html';
import { statusBadge } from './layout';

/** Where a run's history is in the Temporal Web UI. */
export const temporalRunUrl = (ui: { uiUrl: string; namespace: string }, runId: string) =>
  `${ui.uiUrl}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${encodeURIComponent(agentRunWorkflowId(runId))}`;

/** A calibrated score (a probability) as a percentage: "87 %", "<1 %". */
export const scorePercent = (n: number | null) => (n === null ? '—' : n > 0 && n < 0.005 ? '<1 %' : n < 1 && n >= 0.995 ? '>99 %' : `${Math.round(n * 100)} %`);

/** The one-line legend shown with scores. */
export const SCORE_LEGEND = 'Score: the estimated chance that the passage answers the question (calibrated; the agent answers at or above its confidence floor, 50 % by default).';

/** What a run did: confidence, the passages it retrieved, its tool calls, guardrail notes and any handoff. */
export function runDetails(run: RunObject, ui: { uiUrl: string; namespace: string }): Html {
  const floorNote = run.guardrail_notes.length ? run.guardrail_notes : [];
  return html`<div class="run" data-run-id="${run.id}" data-run-status="${run.status}">
  <div class="run-head">${statusBadge(run.status)}
    <span class="confidence" title="The estimated chance that the passage the reply quotes answers the question">confidence <b>${scorePercent(run.confidence)}</b></span>
    ${run.retrieval_mode === 'lexical_fallback' ? html`<span class="tag" data-retrieval-mode="lexical_fallback" title="The question could not be embedded in time: passages were found by their words only, and scored by the lexical calibration">retrieval: lexical fallback</span>` : ''}
    <span class="muted">${run.agent_version > 0 ? `version ${run.agent_version}` : 'draft'}</span>
    <a class="muted" href="${temporalRunUrl(ui, run.id)}" target="_blank" rel="noopener" title="This run's workflow history in the Temporal Web UI">history ↗</a></div>
  ${run.retrieval.length
    ? html`<details class="run-part" open><summary>Sources (${run.retrieval.length})</summary><ol class="passages">${run.retrieval.map(
        (r) => html`<li class="${r.cited ? 'cited' : ''}"><span class="score">${scorePercent(r.score)}</span> <b>${r.title}</b>${r.cited ? html` <span class="tag">cited</span>` : ''}
        ${r.url ? html` ${externalLink(r.url)}` : ''}<div class="snippet">${r.snippet}</div></li>`,
      )}</ol><p class="hint legend">${SCORE_LEGEND}</p></details>`
    : html`<div class="run-part muted">No passages retrieved.</div>`}
  ${run.tool_calls.length
    ? html`<details class="run-part" open><summary>Tool calls (${run.tool_calls.length})</summary><ul class="tool-calls">${run.tool_calls.map(
        (t) => html`<li><b>${t.tool}</b> ${statusBadge(t.result_status)} ${t.latency_ms !== null ? html`<span class="muted">${t.latency_ms} ms</span>` : ''}
        <code class="args">${JSON.stringify(t.arguments)}</code>${t.approval ? html`<div class="muted" data-approved-by>${t.approval.decision === 'approve' ? 'Approved' : 'Rejected'} by <b>${t.approval.approver.name ?? t.approval.approver.id}</b>${t.approval.note ? html`: “${t.approval.note}”` : ''}</div>` : ''}${t.error ? html`<div class="field-error">${t.error.code}: ${t.error.message}</div>` : ''}</li>`,
      )}</ul></details>`
    : ''}
  ${floorNote.length
    ? html`<div class="run-part"><b>Guardrail notes</b><ul>${floorNote.map((n) => html`<li><span class="tag">${n.guardrail}</span> ${n.action}: ${n.detail}</li>`)}</ul></div>`
    : ''}
  ${run.handoff
    ? html`<div class="run-part handoff"><b>Handed off</b> to <i>${run.handoff.queue}</i> (${run.handoff.reason.replace(/_/g, ' ')})
      <div><span class="muted">Summary:</span> ${run.handoff.summary}</div><div><span class="muted">Suggested reply:</span> ${run.handoff.suggested_reply}</div></div>`
    : ''}
  ${run.required_action ? html`<div class="run-part">Waiting for ${run.required_action.type === 'approve_tool_call' ? 'an approval' : 'a tool result'} (until ${run.required_action.expires_at}).</div>` : ''}
  ${run.error ? html`<div class="run-part field-error">${run.error.code}: ${run.error.message}</div>` : ''}
</div>`;
}
