import type { ToolCallOutcome } from '../agents/tools/tool-client';
import type { RunConversationRow } from './run.repo';

/**
 * Answers a run's tool call without calling the tool's endpoint, where the conversation says so: an
 * evaluation's test conversation answers from the results its test case declares (a canned body, an
 * error, a 202 pending), so an evaluation never reaches a business's production tools unless the case
 * asks for it. Declared here, implemented by the evaluations area (above runs).
 */
export interface RunToolAnswersPort {
  /** The declared outcome of this call; undefined: call the endpoint as usual. */
  answerToolCall(input: { conversation: RunConversationRow; tool: string; arguments: Record<string, unknown> }): Promise<ToolCallOutcome | undefined>;
}
