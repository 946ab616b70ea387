import type { AgentObject } from '../../agents/agent.schemas';
import type { RunObject } from '../../runs/run.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField, timeAgo } from './layout';

/**
 * The approval panel of a run waiting for a tool approval (docs/decisions/console-approvals.md): each call
 * with its arguments, who may approve it, an optional note and Approve / Reject. Viewers see it without
 * the form (data-needs-role); the server refuses anyone the tool's approver roles leave out.
 */
export function approvalPanel(run: RunObject, opts: { csrf: string; approverRoles: (tool: string) => readonly string[] }): Html | string {
  const action = run.required_action;
  if (run.status !== 'requires_action' || !action || action.type !== 'approve_tool_call') return '';
  return html`<section class="approval" data-approval-panel data-run-id="${run.id}">
    ${action.tool_calls.map((call) => html`<div data-approval-call="${call.id}"><h3>Approval needed: <b>${call.tool}</b></h3>
      <code class="args">${JSON.stringify(call.arguments, null, 1)}</code>
      <div class="hint">Run <span class="mono">${run.id}</span> waits until ${timeAgoOrDate(action.expires_at)}. Approved by: ${opts.approverRoles(call.tool).join(', ')}.</div>
      <form method="post" action="/console/runs/${run.id}/approvals" class="approval-form" data-approval-form data-needs-role="agent">${csrfField(opts.csrf)}
        <input type="hidden" name="tool_call_id" value="${call.id}">
        <label>Note <span class="hint">optional, kept with the decision</span><input name="note" maxlength="2000"></label>
        <button class="button primary" name="decision" value="approve" data-approve>Approve</button>
        <button class="button danger" name="decision" value="reject" data-reject>Reject</button></form></div>`)}
  </section>`;
}


/** The approval panels of a conversation's runs (its page, one call site): those waiting for an approval. */
export function approvalPanels(input: { runs: Map<string, RunObject>; agent: AgentObject | null; csrf: string }): Html {
  return html`${[...input.runs.values()].map((run) => approvalPanel(run, { csrf: input.csrf, approverRoles: (tool) => approverRolesShown(input.agent, tool) }))}`;
}

/** Who may approve a tool as the agent object states it (the live version's definition). */
export const approverRolesShown = (agent: Pick<AgentObject, 'tool_definitions'> | null, tool: string): readonly string[] =>
  agent?.tool_definitions.find((t) => t.name === tool)?.approver_roles ?? ['agent', 'admin', 'owner'];

/** A decided approval: who and what, for the transcript and the test chat. */
export function approvalDecided(run: RunObject): Html {
  const decided = run.tool_calls.filter((c) => c.approval);
  return html`${decided.map((c) => html`<div class="run-part" data-approval-decided="${c.id}"><b>${c.tool}</b> ${c.approval!.decision === 'approve' ? 'approved' : 'rejected'} by <b>${c.approval!.approver.name ?? c.approval!.approver.id}</b> ${timeAgo(c.approval!.decided_at)}${c.approval!.note ? html` <span class="muted">“${c.approval!.note}”</span>` : ''}</div>`)}`;
}

const timeAgoOrDate = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
