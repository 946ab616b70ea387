import { ActivityFailure, ApplicationFailure, condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { createRunActivities } from '../activities/runs.activities';
import { remotePlannerActivity, replyDeliveryActivity, runStepLocalActivity, toolCallActivity } from './shared/activity-options';
import {
  previousRunFinishedSignal,
  toolCallResolvedSignal,
  type AgentRunInput,
  type AgentRunResult,
} from './shared/runs.contracts';

type RunActivities = ReturnType<typeof createRunActivities>;
const steps = proxyLocalActivities<RunActivities>(runStepLocalActivity);
const { planNextStep: planRemotely } = proxyActivities<RunActivities>(remotePlannerActivity);
const { callTool } = proxyActivities<RunActivities>(toolCallActivity);
const { deliverReply, deliverHandoffNotice } = proxyActivities<RunActivities>(replyDeliveryActivity);

/** Planner turns per run: each may call tools; the last one must reply or hand off. */
const MAX_PLANNER_STEPS = 4;
/** A run queued behind another one re-checks this often even without the signal. */
const QUEUED_RECHECK = '1 minute';

type StartRunResult = Awaited<ReturnType<RunActivities['startRun']>>;
/** startRun's answer as histories recorded before it spoke SPEC's run statuses hold it (they must keep replaying). */
type RecordedStartRunResult = { state: 'ready' | 'blocked' | 'guarded' } | { state: 'finished'; status: 'completed' | 'failed' | 'expired' };

/** startRun's answer in SPEC's statuses, whichever shape the history recorded. */
function startedAs(result: StartRunResult | RecordedStartRunResult): StartRunResult {
  if (!('state' in result)) return result;
  if (result.state === 'finished') return { status: result.status };
  if (result.state === 'blocked') return { status: 'queued' };
  return result.state === 'guarded' ? { status: 'in_progress', decided: true } : { status: 'in_progress' };
}

function failureOf(err: unknown): { code: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type && cause.type !== 'Error') return { code: cause.type, message: cause.message };
  return { code: 'run_failed', message: cause instanceof Error ? cause.message : 'The run failed' };
}

/**
 * One agent run, the answer to one customer message. Reads like SPEC's run table: queued (behind the
 * conversation's previous run) → in_progress → restricted-topic check → retrieval → planner → tool calls
 * (approval gate and async results → requires_action, until resolved or expired) → reply or handoff
 * (guardrails applied when it finishes) → completed; an unrecoverable error → failed (no reply). Every
 * transition is written to Postgres by the steps; the history carries ids and statuses only.
 */
export async function agentRunWorkflow(input: AgentRunInput): Promise<AgentRunResult> {
  const { runId } = input;
  const resolved = new Set<string>();
  let previousFinished = false;
  setHandler(toolCallResolvedSignal, ({ toolCallId }) => void resolved.add(toolCallId));
  setHandler(previousRunFinishedSignal, () => void (previousFinished = true));

  /** Marks the calls as required actions and waits for all of them, or their expiry. */
  async function awaitRequiredAction(kind: 'approve_tool_call' | 'submit_tool_result', toolCallIds: string[], seconds: number) {
    await steps.requireAction({ runId, kind, toolCallIds, expiresAtMs: Date.now() + seconds * 1000 });
    const done = await condition(() => toolCallIds.every((id) => resolved.has(id)), seconds * 1000);
    return steps.collectToolCalls({ runId, toolCallIds, expire: !done });
  }

  /**
   * Completes the run; a reply for a channel (sms, email) is then sent by its own retried activity, and so
   * is the customer's handoff notice (histories recorded before notices have no `notice` and replay as they were).
   */
  async function finish(args: { handoffReason?: 'approval_rejected' | 'approval_expired' } = {}): Promise<AgentRunResult> {
    const done = await steps.finishRun({ runId, ...args });
    if (done.deliver) await deliverReply({ runId });
    if (done.notice) await deliverHandoffNotice({ runId });
    return { status: done.status };
  }

  try {
    for (;;) {
      const started = startedAs(await steps.startRun({ runId }));
      if (started.status === 'queued') {
        previousFinished = false;
        await condition(() => previousFinished, QUEUED_RECHECK);
        continue;
      }
      if (started.status !== 'in_progress') return { status: started.status };
      if (started.decided) return await finish();
      break;
    }

    await steps.retrieveKnowledge({ runId });

    for (let step = 0; step < MAX_PLANNER_STEPS; step++) {
      const plan = input.planner === 'local' ? await steps.planNextStep({ runId, step }) : await planRemotely({ runId, step });
      if (plan.type !== 'tool_calls') break;

      const gated = plan.calls.filter((c) => c.status === 'awaiting_approval').map((c) => c.id);
      if (gated.length > 0) {
        const decided = await awaitRequiredAction('approve_tool_call', gated, input.approvalTimeoutSeconds);
        if (decided.some((c) => c.status === 'rejected')) return await finish({ handoffReason: 'approval_rejected' });
        if (decided.some((c) => c.status === 'expired')) return await finish({ handoffReason: 'approval_expired' });
      }

      const callable = plan.calls.filter((c) => c.status === 'ready' || gated.includes(c.id)).map((c) => c.id);
      const outcomes = await Promise.all(callable.map((toolCallId) => callTool({ runId, toolCallId })));
      const pending = callable.filter((_, i) => outcomes[i]!.status === 'pending_result');
      if (pending.length > 0) {
        const results = await awaitRequiredAction('submit_tool_result', pending, input.toolResultTimeoutSeconds);
        if (results.some((c) => c.status === 'expired')) return await steps.expireRun({ runId });
      }
    }
    return await finish();
  } catch (err) {
    return steps.failRun({ runId, ...failureOf(err) });
  }
}
