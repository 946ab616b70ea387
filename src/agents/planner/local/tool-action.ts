import type { PlannerTool } from '../port';
import type { ExtractedArguments } from './tool-argument-extraction';
import type { RankedTool } from './tool-router';
import type { ToolRoutingCalibration } from './tool-routing-calibration';

/** What the local planner does about tools for one message, from the router's ranking. */
export type ToolAction =
  | { kind: 'call'; tool: PlannerTool; arguments: Record<string, unknown>; probability: number }
  | { kind: 'ask'; tool: PlannerTool; missing: string[]; probability: number }
  | { kind: 'none'; best: RankedTool | null };

/**
 * The best tool is called when its calibrated probability reaches `callThreshold` and its required
 * arguments are all present; when some are missing the customer is asked for them only when the tool is
 * clearly meant (`askThreshold`, at least `callThreshold`): a wrong clarifying question costs the customer
 * a turn and reveals a tool they did not ask for. The shipped calibration sets both to 0.6: almost every
 * message that needs a tool lacks its argument, so the ask threshold is the one that decides.
 */
export function decideToolAction(input: {
  ranked: readonly RankedTool[];
  calibration: Pick<ToolRoutingCalibration, 'callThreshold' | 'askThreshold'>;
  extract: (tool: PlannerTool) => ExtractedArguments;
}): ToolAction {
  const best = input.ranked[0] ?? null;
  if (!best || best.probability < input.calibration.callThreshold) return { kind: 'none', best };
  const extracted = input.extract(best.tool);
  if (extracted.missing.length === 0) return { kind: 'call', tool: best.tool, arguments: extracted.arguments, probability: best.probability };
  if (best.probability >= input.calibration.askThreshold) return { kind: 'ask', tool: best.tool, missing: extracted.missing, probability: best.probability };
  return { kind: 'none', best };
}
