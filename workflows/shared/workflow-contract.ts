/**
 * A workflow's contract: its type name and the shapes of its input and result. Services start workflows
 * through these (via the gateway) and never import a workflow file; the workflow file takes its input and
 * result types from the same contract, so the two cannot drift. `test/unit/workflow-contracts.test.ts`
 * checks that every contract names a workflow the worker registers.
 */
export interface WorkflowContract<I, R> {
  readonly workflowType: string;
  /** Phantom: carries the input and result types; never set. */
  readonly types?: { input: I; result: R };
}

export type ContractInput<C> = C extends WorkflowContract<infer I, unknown> ? I : never;
export type ContractResult<C> = C extends WorkflowContract<unknown, infer R> ? R : never;

export const defineWorkflowContract = <I, R>(workflowType: string): WorkflowContract<I, R> => ({ workflowType });
