import { defineWorkflowContract } from './workflow-contract';

export interface EvaluationInput {
  evaluationId: string;
  /** The cases to run, in order (ids only: their turns stay in Postgres). */
  caseIds: string[];
  /** How many cases run at once (resolved from the configuration when the evaluation was created). */
  concurrency: number;
}

export interface EvaluationResult {
  passed: number;
  failed: number;
}

/** One evaluation: every case run as ordinary runs in hidden test conversations, then compared and completed. */
export const evaluationWorkflowContract = defineWorkflowContract<EvaluationInput, EvaluationResult>('evaluationWorkflow');

export const evaluationWorkflowId = (evaluationId: string) => evaluationId;
