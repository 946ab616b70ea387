import type { AgentConfig } from '../agents/agent.schemas';
import { redactDeep } from '../privacy/redaction';
import { validateToolArguments } from '../agents/guardrails/tool-argument-validation';
import type { PlannerToolResult } from '../agents/planner/port';
import { derivedId, IdPrefix } from '../domain/ids';
import { plannedToolCallStatus } from './run-lifecycle';
import type { ToolCallRow } from './run.repo';

/**
 * A planner turn's tool calls as the run records them: ids derived from the run, the step and the call's
 * place (a retried turn derives the same ids), arguments redacted then validated against the tool's
 * parameters, approval-gated per the agent's guardrails; numbered after the `recorded` calls.
 */
export function plannedToolCallRows(input: { runId: string; step: number; recorded: number; calls: { tool: string; arguments: Record<string, unknown> }[]; config: AgentConfig }) {
  const { runId, step, recorded, calls, config } = input;
  return calls.map((call, i) => {
    const id = derivedId(IdPrefix.toolCall, runId, String(step), String(i));
    const tool = config.tools.find((t) => t.name === call.tool);
    const args = redactDeep(call.arguments ?? {});
    const problem = !tool
      ? `There is no tool named '${call.tool}'`
      : (() => {
          const v = validateToolArguments({ schema: tool.parameters, arguments: args });
          return v.ok ? null : v.message;
        })();
    return {
      id,
      run_id: runId,
      seq: recorded + i + 1,
      tool: call.tool,
      arguments: JSON.stringify(args),
      status: plannedToolCallStatus({ valid: problem === null, requiresApproval: config.guardrails.requires_approval.includes(call.tool) }),
      result: null,
      error: problem ? JSON.stringify({ code: 'invalid_arguments', message: problem }) : null,
      latency_ms: null,
      expires_at: null,
      decision_note: null,
    };
  });
}

/** A finished tool call as the planner reads it back (an invalid call is an error to it). */
export function toPlannerResult(c: ToolCallRow): PlannerToolResult {
  const status: PlannerToolResult['status'] = c.status === 'invalid' ? 'error' : (c.status as PlannerToolResult['status']);
  return { callId: c.id, tool: c.tool, arguments: c.arguments, status, result: c.result ?? undefined, error: c.error ?? undefined };
}
