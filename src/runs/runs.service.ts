import type { Kysely } from 'kysely';
import type { ConversationRepo } from '../conversations/conversation.repo';
import type { DB } from '../db/schema';
import type { RunStatus } from '../db/tables/agents';
import { AppError, notFound } from '../domain/errors';
import { redactDeep, redactText } from '../agents/guardrails/redaction';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { agentRunWorkflowId, toolCallResolvedSignal } from '../../workflows/shared/runs.contracts';
import type { RunNotifier } from './run-notifier';
import { RunRepo, TERMINAL_RUN_STATUSES, type RunRow } from './run.repo';
import { toRunObject, type RunObject } from './run.schemas';
import { scopeOf, type Scope } from '../domain/principal';

/** Statuses a POST waits for: the run answered, failed, or needs someone else to act. */
const SETTLED: RunStatus[] = [...TERMINAL_RUN_STATUSES, 'requires_action'];
/** Waiters re-read Postgres this often even without a notification. */
const POLL_MS = 250;

export interface RunStreamEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/**
 * Runs as the API sees them: read (Postgres is the read model), wait for one to settle, stream its events,
 * and resolve its required actions (approvals, async tool results). A resolution is decided in Postgres
 * first (conditional update: the first decision wins, an expired call answers 409 at once), then the
 * workflow is signalled to go on.
 */
export class RunsService {
  private readonly repo = new RunRepo();

  constructor(private readonly deps: { db: Kysely<DB>; conversations: ConversationRepo; workflows: WorkflowGateway; notifier: RunNotifier }) {}

  async getRun(input: Scope & { runId: string }): Promise<RunObject> {
    const run = await this.repo.getRunById(this.deps.db, scopeOf(input), input.runId);
    if (!run) throw notFound('run', input.runId);
    return this.present(run);
  }

  async present(run: RunRow): Promise<RunObject> {
    const [calls, conversation] = await Promise.all([this.repo.listToolCalls(this.deps.db, run.id), this.deps.conversations.getConversation(this.deps.db, run.conversation_id)]);
    return toRunObject(run, calls, conversation?.metadata ?? {});
  }

  /** Waits up to `waitMs` for the run to complete, fail, expire or require action; returns it as it stands. */
  async waitForRun(input: { runId: string; waitMs: number; signal?: AbortSignal }): Promise<RunObject> {
    const deadline = Date.now() + input.waitMs;
    for (;;) {
      const remaining = deadline - Date.now();
      // Subscribed before reading, so a change between the read and the wait is not missed.
      const wake = remaining > 0 ? this.deps.notifier.next(input.runId, Math.min(POLL_MS, remaining), input.signal) : undefined;
      const run = await this.repo.getRun(this.deps.db, input.runId);
      if (!run) throw notFound('run', input.runId);
      if (!wake || SETTLED.includes(run.status) || input.signal?.aborted) return this.present(run);
      await wake;
    }
  }

  /**
   * The run's stream: stored events after `afterSeq`, then live ones until run.completed (or the client
   * leaves). Resuming with Last-Event-ID gives exactly what was missed.
   */
  async *streamEvents(input: Scope & { runId: string; afterSeq: number; signal?: AbortSignal }): AsyncGenerator<RunStreamEvent> {
    const run = await this.repo.getRunById(this.deps.db, scopeOf(input), input.runId);
    if (!run) throw notFound('run', input.runId);
    let seq = input.afterSeq;
    while (!input.signal?.aborted) {
      const wake = this.deps.notifier.next(run.id, POLL_MS * 4, input.signal);
      const events = await this.repo.listEventsAfter(this.deps.db, run.id, seq);
      for (const e of events) {
        seq = e.seq;
        yield { id: e.seq, event: e.type, data: e.data };
        if (e.type === 'run.completed') return;
      }
      await wake;
    }
  }

  /** An async tool result (202 pending earlier): recorded once, then the run goes on. */
  async submitToolResult(input: Scope & { runId: string; toolCallId: string; result: Record<string, unknown> }): Promise<RunObject> {
    const { db } = this.deps;
    const run = await this.resolvable(scopeOf(input), input.runId, input.toolCallId);
    const call = (await this.repo.getToolCall(db, run.id, input.toolCallId))!;
    if (call.status === 'expired' || (call.status === 'pending_result' && call.expires_at && call.expires_at.getTime() <= Date.now()) || run.status === 'expired') {
      throw new AppError('tool_result_expired', `The result of ${call.id} arrived after the run stopped waiting for it`, { param: 'tool_call_id' });
    }
    const moved = await this.repo.transitionToolCall(db, call.id, ['pending_result'], 'ok', { result: JSON.stringify(redactDeep(input.result)) });
    if (!moved) {
      const now = await this.repo.getToolCall(db, run.id, call.id);
      if (now?.status === 'expired') throw new AppError('tool_result_expired', `The result of ${call.id} arrived after the run stopped waiting for it`, { param: 'tool_call_id' });
      throw new AppError('tool_call_not_pending', `Tool call ${call.id} is not waiting for a result (it is ${now?.status})`, { param: 'tool_call_id' });
    }
    await this.deps.workflows.signalIfRunning(agentRunWorkflowId(run.id), toolCallResolvedSignal, { toolCallId: call.id });
    return this.present((await this.repo.getRun(db, run.id))!);
  }

  /** Approves or rejects a tool call gated by requires_approval. */
  async decideApproval(input: Scope & { runId: string; toolCallId: string; decision: 'approve' | 'reject'; note?: string }): Promise<RunObject> {
    const { db } = this.deps;
    const run = await this.resolvable(scopeOf(input), input.runId, input.toolCallId);
    const call = (await this.repo.getToolCall(db, run.id, input.toolCallId))!;
    const expired = () => new AppError('approval_expired', `The approval of ${call.id} came after the run stopped waiting for it`, { param: 'tool_call_id' });
    if (call.status === 'expired' || (call.status === 'awaiting_approval' && call.expires_at && call.expires_at.getTime() <= Date.now())) throw expired();
    const moved = await this.repo.transitionToolCall(db, call.id, ['awaiting_approval'], input.decision === 'approve' ? 'approved' : 'rejected', {
      decision_note: input.note ? redactText(input.note).text : null,
    });
    if (!moved) {
      const now = await this.repo.getToolCall(db, run.id, call.id);
      if (now?.status === 'expired') throw expired();
      throw new AppError('tool_call_not_pending', `Tool call ${call.id} is not awaiting approval (it is ${now?.status})`, { param: 'tool_call_id' });
    }
    await this.deps.workflows.signalIfRunning(agentRunWorkflowId(run.id), toolCallResolvedSignal, { toolCallId: call.id });
    return this.present((await this.repo.getRun(db, run.id))!);
  }

  private async resolvable(scope: Scope, runId: string, toolCallId: string) {
    const run = await this.repo.getRunById(this.deps.db, scope, runId);
    if (!run) throw notFound('run', runId);
    const call = await this.repo.getToolCall(this.deps.db, run.id, toolCallId);
    if (!call) throw notFound('tool call', toolCallId, 'tool_call_id');
    return run;
  }
}
