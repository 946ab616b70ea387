import type { Kysely } from 'kysely';
import type { ToolCallOutcome } from '../agents/tools/tool-client';
import type { DB } from '../db/schema';
import type { RunToolAnswersPort } from '../runs/run-tool-answers.port';
import type { RunConversationRow } from '../runs/run.repo';
import { EvaluationRepo } from './evaluation.repo';
import type { DeclaredToolResult } from './evaluation.schemas';
import { argumentsInclude } from './expectations';
import { definitionOf } from './test-cases.service';

/** The metadata keys that mark an evaluation's test conversation (its runs and events carry them). */
export const EVALUATION_METADATA = { evaluation: 'evaluation_id', testCase: 'evaluation_case_id' } as const;

/** The case's declaration for this call: the first naming the tool whose `arguments` the call includes. */
export function declaredResultFor(declared: DeclaredToolResult[], tool: string, args: Record<string, unknown>): DeclaredToolResult | undefined {
  return declared.find((d) => d.tool === tool && argumentsInclude(args, d.arguments));
}

/**
 * RunToolAnswersPort for evaluations: a tool call in an evaluation's test conversation is answered from
 * the results its case declares (200 with a body, an error, a 202 pending), never from the tool's
 * endpoint unless the declaration says `call_endpoint: true`. A call the case declares nothing for is an
 * error to the run (`tool_result_not_declared`): an undeclared call never reaches production.
 */
export class DeclaredToolAnswers implements RunToolAnswersPort {
  private readonly repo = new EvaluationRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  async answerToolCall(input: { conversation: RunConversationRow; tool: string; arguments: Record<string, unknown> }): Promise<ToolCallOutcome | undefined> {
    const { conversation } = input;
    const caseId = conversation.metadata[EVALUATION_METADATA.testCase];
    if (!conversation.test || !caseId) return undefined;
    const row = await this.repo.getTestCaseById(this.deps.db, caseId);
    if (!row || row.account_id !== conversation.account_id) {
      return { status: 'error', error: { code: 'test_case_missing', message: `Test case ${caseId} no longer exists` }, latencyMs: 0 };
    }
    const declared = declaredResultFor(definitionOf(row).tool_results, input.tool, input.arguments);
    if (!declared) return { status: 'error', error: { code: 'tool_result_not_declared', message: `The test case declares no result for ${input.tool} with these arguments` }, latencyMs: 0 };
    if (declared.call_endpoint) return undefined;
    if (declared.error) return { status: 'error', error: { code: declared.error.code, message: declared.error.message }, latencyMs: 0 };
    if (declared.pending) return { status: 'pending', latencyMs: 0 };
    return { status: 'ok', result: declared.result ?? null, latencyMs: 0, httpStatus: 200 };
  }
}
