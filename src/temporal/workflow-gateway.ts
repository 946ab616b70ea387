import {
  Client,
  isGrpcServiceError,
  ScheduleNotFoundError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type ScheduleOptions,
  type ScheduleSpec,
} from '@temporalio/client';
import { WorkflowIdReusePolicy, type Duration, type SignalDefinition } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import type { WorkflowContract } from '../../workflows/shared/workflow-contract';
import { AppError } from '../domain/errors';

/** How long one call to Temporal may take before the caller gets 503 service_unavailable. */
const DEFAULT_RPC_DEADLINE_MS = 5000;
/** gRPC status codes meaning the server (not the request) is the problem: DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNAVAILABLE. */
const UNAVAILABLE_GRPC_CODES = new Set([4, 8, 14]);

/** Whether an error from the Temporal client means the server is away, overloaded or too slow. */
export function isTemporalUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e) && UNAVAILABLE_GRPC_CODES.has(e.code)) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && UNAVAILABLE_GRPC_CODES.has(code)) return true;
  }
  return false;
}

export interface StartWorkflowOptions<I> {
  workflowId: string;
  input: I;
  memo?: Record<string, unknown>;
  startDelay?: Duration;
  /**
   * Ask the server to hand the first workflow task straight back to this process's worker (eager start):
   * saves the matching round trip when API and worker share a process (npm start). Ignored otherwise.
   */
  eager?: boolean;
  /**
   * How long one workflow task may take before the server gives it to another worker (Temporal's default
   * 10 s). Workflows running many local activities in one task need more on a busy worker.
   */
  workflowTaskTimeout?: Duration;
  /**
   * Start again once an earlier run with this id has closed (never two at once): for work keyed by its
   * subject that may be due again later (the embedding sweep). Default: an id runs once, ever.
   */
  rerun?: boolean;
}

export interface ScheduledWorkflowOptions<I> {
  scheduleId: string;
  spec: ScheduleSpec;
  workflowId: string;
  input: I;
  memo?: Record<string, unknown>;
  policies?: ScheduleOptions['policies'];
}

/**
 * The services' only door to Temporal, typed on the workflow contracts in workflows/shared: start
 * workflows by business-key id (idempotent: a second start of the same id is a no-op), signal them by
 * their signal definitions, and keep schedules. Services never import a workflow file.
 */
export class WorkflowGateway {
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    private readonly rpcDeadlineMs = DEFAULT_RPC_DEADLINE_MS,
  ) {}

  /**
   * One call to the server with a deadline: the server away (or too slow) becomes AppError
   * service_unavailable (503 with Retry-After in the API; retried by Temporal in an activity) instead of a
   * request hanging through the client's own retries or a 500.
   */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.client.withDeadline(Date.now() + this.rpcDeadlineMs, fn);
    } catch (err) {
      if (isTemporalUnavailable(err)) {
        throw new AppError('service_unavailable', 'The workflow engine is briefly unavailable; retry the request', { headers: { 'Retry-After': '1' }, cause: err });
      }
      throw err;
    }
  }

  /**
   * Starts the contract's workflow unless one with this id already ran (with `rerun`: unless one with this
   * id is running); returns whether it started it.
   */
  async start<I, R>(contract: WorkflowContract<I, R>, opts: StartWorkflowOptions<I>): Promise<boolean> {
    try {
      await this.call(() => this.client.workflow.start(contract.workflowType, {
        taskQueue: this.taskQueue,
        workflowId: opts.workflowId,
        args: [opts.input],
        memo: opts.memo,
        startDelay: opts.startDelay,
        workflowTaskTimeout: opts.workflowTaskTimeout,
        requestEagerStart: opts.eager === true && this.client.connection instanceof NativeConnection,
        workflowIdReusePolicy: opts.rerun ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE,
      }));
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  async signal<Args extends unknown[]>(workflowId: string, signal: SignalDefinition<Args>, ...args: Args): Promise<void> {
    await this.call(() => this.client.workflow.getHandle(workflowId).signal(signal, ...args));
  }

  /** Signals a workflow that may have finished already; a finished or unknown workflow is not an error. */
  async signalIfRunning<Args extends unknown[]>(workflowId: string, signal: SignalDefinition<Args>, ...args: Args): Promise<boolean> {
    try {
      await this.signal(workflowId, signal, ...args);
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  /** Creates the schedule, or updates the spec of the one that exists with this id. */
  async upsertSchedule<I, R>(contract: WorkflowContract<I, R>, opts: ScheduledWorkflowOptions<I>): Promise<void> {
    try {
      await this.call(() => this.client.schedule.getHandle(opts.scheduleId).update((prev) => ({ ...prev, spec: opts.spec })));
      return;
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
    await this.call(() => this.client.schedule.create({
      scheduleId: opts.scheduleId,
      spec: opts.spec,
      action: {
        type: 'startWorkflow',
        workflowType: contract.workflowType,
        taskQueue: this.taskQueue,
        workflowId: opts.workflowId,
        args: [opts.input],
      },
      policies: opts.policies,
      memo: opts.memo,
    }));
  }

  /** Deletes a schedule; one that does not exist is not an error. */
  async deleteSchedule(scheduleId: string): Promise<void> {
    try {
      await this.call(() => this.client.schedule.getHandle(scheduleId).delete());
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }
}

/**
 * One native connection for the client and, in a process that runs one, the worker: sharing it is what
 * lets the server start a workflow eagerly on this process's worker.
 */
export async function connectTemporal(opts: { address: string; namespace: string }) {
  const connection = await NativeConnection.connect({ address: opts.address });
  const client = new Client({ connection, namespace: opts.namespace });
  return { connection, client };
}
