import type { RunStepsService } from '../src/runs/run-steps.service';
import { asActivity } from './activity-errors';
import { withHeartbeat } from './heartbeat';

/** The agent run workflow's steps, over RunStepsService; each reads and writes Postgres by run id. */
export function createRunActivities(deps: { runSteps: RunStepsService }) {
  const steps = deps.runSteps;
  return {
    /** queued → in_progress once the conversation's earlier runs finished; restricted-topic check. */
    startRun: (input: { runId: string }) => asActivity(() => steps.startRun(input)),
    /** Retrieves passages from the agent's knowledge bases for the customer message. */
    retrieveKnowledge: (input: { runId: string }) => asActivity(() => steps.retrieveKnowledge(input)),
    /** One planner turn: tool calls (validated, approval-gated) or a reply or a handoff. */
    planNextStep: (input: { runId: string; step: number }) => asActivity(() => steps.planNextStep(input)),
    /** Calls one tool endpoint (signed POST, timeout, retry once on network errors when idempotent). */
    callTool: (input: { runId: string; toolCallId: string }) => withHeartbeat(() => asActivity(() => steps.callTool(input))),
    /** in_progress → requires_action: approvals or async tool results awaited until expiresAtMs. */
    requireAction: (input: { runId: string; kind: 'approve_tool_call' | 'submit_tool_result'; toolCallIds: string[]; expiresAtMs: number }) =>
      asActivity(() => steps.requireAction(input)),
    /** Back to in_progress after the wait; what was still pending is expired when the wait timed out. */
    collectToolCalls: (input: { runId: string; toolCallIds: string[]; expire: boolean }) => asActivity(() => steps.collectToolCalls(input)),
    /** Guardrails, reply (shaped for the channel) or handoff, events: completed. */
    finishRun: (input: { runId: string; handoffReason?: 'approval_rejected' | 'approval_expired' }) => asActivity(() => steps.finishRun(input)),
    /** Sends the finished run's reply on its channel (sms, email); retried until the channel takes it. */
    deliverReply: (input: { runId: string }) => asActivity(() => steps.deliverReply(input)),
    /** Sends the handoff notice of a run that handed off on its channel (sms, email); retried until the channel takes it. */
    deliverHandoffNotice: (input: { runId: string }) => asActivity(() => steps.deliverHandoffNotice(input)),
    /** A required action was not fulfilled in time: expired, no reply. */
    expireRun: (input: { runId: string }) => asActivity(() => steps.expireRun(input)),
    /** An unrecoverable error: failed with its error, no reply. */
    failRun: (input: { runId: string; code: string; message: string }) => asActivity(() => steps.failRun(input)),
  };
}
