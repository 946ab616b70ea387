import { Client, Connection, WorkflowExecutionAlreadyStartedError, type WorkflowStartOptions } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Workflow } from '@temporalio/common';

/**
 * The services' only door to Temporal: start workflows by business-key id (idempotent: a second start of
 * the same id is a no-op), signal them, and reach schedules. Workflow functions are referenced by type only.
 */
export class WorkflowGateway {
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
  ) {}

  /** Starts `workflowType` unless a workflow with this id already ran; returns whether it started it. */
  async start<W extends Workflow>(
    workflowType: string,
    opts: { workflowId: string; args: Parameters<W>; memo?: Record<string, unknown>; startDelay?: string },
  ): Promise<boolean> {
    try {
      await this.client.workflow.start<W>(workflowType, {
        taskQueue: this.taskQueue,
        workflowId: opts.workflowId,
        args: opts.args,
        memo: opts.memo,
        startDelay: opts.startDelay,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      } as unknown as WorkflowStartOptions<W>);
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  async signal(workflowId: string, signalName: string, ...args: unknown[]): Promise<void> {
    await this.client.workflow.getHandle(workflowId).signal(signalName, ...args);
  }

  /** Signals a workflow that may have finished already; a finished or unknown workflow is not an error. */
  async signalIfRunning(workflowId: string, signalName: string, ...args: unknown[]): Promise<boolean> {
    try {
      await this.signal(workflowId, signalName, ...args);
      return true;
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError') return false;
      throw err;
    }
  }
}

export async function connectTemporal(opts: { address: string; namespace: string }) {
  const connection = await Connection.connect({ address: opts.address });
  const client = new Client({ connection, namespace: opts.namespace });
  return { connection, client };
}
