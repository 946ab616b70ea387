import { defineSignal } from '@temporalio/workflow';
import { defineWorkflowContract } from './workflow-contract';

export interface AgentRunInput {
  runId: string;
  /** Where planning runs: `local` in the workflow task (a local activity), remote providers as activities. */
  planner: 'local' | 'remote';
  /** Resolved from the agent version when the run was created, so the history is self-describing. */
  approvalTimeoutSeconds: number;
  toolResultTimeoutSeconds: number;
}

export interface AgentRunResult {
  status: 'completed' | 'failed' | 'expired';
}

/** One agent run: retrieve, plan, call tools (approvals, async results), reply or hand off. */
export const agentRunWorkflowContract = defineWorkflowContract<AgentRunInput, AgentRunResult>('agentRunWorkflow');

/**
 * A required action of the run was resolved in Postgres (an approval decided, an async tool result
 * submitted): the workflow re-reads its tool calls. The payload names the call; the decision itself
 * stays in Postgres (no customer data in history).
 */
export const toolCallResolvedSignal = defineSignal<[{ toolCallId: string }]>('toolCallResolved');

/** The run before this one in the same conversation finished: this run may start. */
export const previousRunFinishedSignal = defineSignal('previousRunFinished');

export const agentRunWorkflowId = (runId: string) => runId;
