import { Context } from '@temporalio/activity';
import type { EvaluationCaseRunner } from '../src/evaluations/evaluation-case-runner';
import type { EvaluationsService } from '../src/evaluations/evaluations.service';
import { asActivity } from './activity-errors';

/** The evaluation workflow's steps, over EvaluationCaseRunner and EvaluationsService. */
export function createEvaluationActivities(deps: { evaluations: EvaluationsService; evaluationCases: EvaluationCaseRunner }) {
  const svc = deps.evaluations;
  return {
    /** One test case: its turns as runs in a hidden test conversation, its expectations checked, its result recorded once. */
    runEvaluationCase: (input: { evaluationId: string; caseId: string; position: number }) => {
      const ctx = Context.current();
      return asActivity(() => deps.evaluationCases.runEvaluationCase({ ...input, heartbeat: () => ctx.heartbeat() }));
    },
    /** Comparison with the live version's last evaluation, completed, evaluation.completed. */
    completeEvaluation: (input: { evaluationId: string }) => asActivity(() => svc.completeEvaluation(input)),
  };
}
