import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';

export interface CreateWorkerInput {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** The activities the worker registers (activities/index.ts builds them over the app's services). */
  activities: NonNullable<WorkerOptions['activities']>;
  /** A prebuilt bundle (tests build it once per file); otherwise workflows/ is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export function workflowsPath(): string {
  return require.resolve('../../workflows');
}

export async function createWorker(input: CreateWorkerInput): Promise<Worker> {
  return Worker.create({
    connection: input.connection,
    namespace: input.namespace,
    taskQueue: input.taskQueue,
    activities: input.activities,
    ...(input.workflowBundle ? { workflowBundle: input.workflowBundle } : { workflowsPath: workflowsPath() }),
    maxConcurrentActivityTaskExecutions: 200,
    // On shutdown, activities in flight get this long to finish before they are cancelled.
    shutdownGraceTime: '10s',
    maxConcurrentWorkflowTaskExecutions: 100,
  });
}
