import { proxyActivities } from '@temporalio/workflow';
import type { createEvaluationActivities } from '../activities/evaluations.activities';
import { evaluationCaseActivity, evaluationStepActivity } from './shared/activity-options';
import type { EvaluationInput, EvaluationResult } from './shared/evaluations.contracts';

type EvaluationActivities = ReturnType<typeof createEvaluationActivities>;
const { runEvaluationCase } = proxyActivities<EvaluationActivities>(evaluationCaseActivity);
const { completeEvaluation } = proxyActivities<EvaluationActivities>(evaluationStepActivity);

/**
 * One evaluation: runs each case (one activity per case: its turns as ordinary runs in a hidden test
 * conversation, its result recorded once), at most `concurrency` at a time, then completes the
 * evaluation (comparison with the live version, evaluation.completed). A worker lost mid-case: the
 * activity is retried and finds the case's messages and runs by their derived ids, so no case is lost and
 * none runs twice; a case already recorded answers its stored result.
 */
export async function evaluationWorkflow(input: EvaluationInput): Promise<EvaluationResult> {
  const { evaluationId, caseIds } = input;
  let next = 0;
  let passed = 0;
  let failed = 0;
  async function lane() {
    while (next < caseIds.length) {
      const position = next++;
      try {
        const outcome = await runEvaluationCase({ evaluationId, caseId: caseIds[position]!, position });
        if (outcome.passed) passed++;
        else failed++;
      } catch {
        // A case whose activity gave up (its retries spent): it has no result and counts as failed; the
        // evaluation still completes (its case_count shows the missing result).
        failed++;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, caseIds.length)) }, lane));
  await completeEvaluation({ evaluationId });
  return { passed, failed };
}
