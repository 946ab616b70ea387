import type { Router } from 'express';
import { z } from 'zod';
import { actorOf, idOf, page, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { RunsService } from '../runs/runs.service';
import { scopeOf } from '../domain/principal';
import { approvalDecided, approvalPanel } from './views/approval.view';

const DecisionSchema = z.object({
  tool_call_id: z.string().startsWith('call_').max(255),
  decision: z.enum(['approve', 'reject']),
  note: z.string().trim().max(2000).optional(),
});

/** The services these console pages use. */
interface ConsoleApprovalServices { runs: RunsService; agents: AgentsService }

/**
 * Approvals in the console (docs/decisions/console-approvals.md): the panel of a run waiting for one (a
 * fragment the test chat places in its log; the conversation page renders the same partial), and the
 * decision, recorded as the signed-in teammate (or the key of a key sign-in). Posting needs the agent role
 * (console-roles.ts); a tool's `approver_roles` narrow it further (RunsService.decideApproval).
 */
export function registerConsoleApprovalRoutes(router: Router, { services }: ConsoleDeps<ConsoleApprovalServices>) {
  router.get('/runs/:id/approval', page(async (req, res) => {
    const { session } = sessionOf(res);
    const run = await services.runs.getRun({ ...scopeOf(session), runId: idOf(req) });
    const roles = new Map<string, readonly string[]>();
    for (const call of run.required_action?.tool_calls ?? []) {
      roles.set(call.tool, await services.runs.approverRolesOf({ agent_id: run.agent_id, agent_version: run.agent_version }, call.tool));
    }
    res.type('html').send((approvalPanel(run, { csrf: session.csrfToken, approverRoles: (tool) => roles.get(tool) ?? [] }) || approvalDecided(run)).toString());
  }));

  router.post('/runs/:id/approvals', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = DecisionSchema.parse(req.body);
    const run = await services.runs.decideApproval({
      ...scopeOf(session), runId: idOf(req), toolCallId: body.tool_call_id, decision: body.decision, note: body.note || undefined,
      approver: actorOf(res), approverRole: session.role,
    });
    if (req.accepts(['html', 'json']) === 'json') {
      res.json({ run_id: run.id, status: run.status, decided: approvalDecided(run).toString() });
      return;
    }
    res.redirect(303, `/console/inbox/${run.conversation_id}?done=approval`);
  }));
}
