import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { AppError, notFound, referenceMissing } from '../domain/errors';
import { redactDeep, redactText } from '../privacy/redaction';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { agentRunWorkflowId, toolCallResolvedSignal } from '../../workflows/shared/runs.contracts';
import type { RunNotifier } from './run-notifier';
import { moveToolCall, RUN_WAIT_ENDS } from './run-lifecycle';
import type { RunStatus } from '../db/tables/agents';
import { RunRepo, type RunRow, type RunView } from './run.repo';
import { toRunObject, type RunObject } from './run.schemas';
import { scopeOf, type Scope } from '../domain/principal';
import { APPROVER_ROLES, type Approver, type Role } from '../domain/roles';
import { derivedId, IdPrefix } from '../domain/ids';
import type { AgentsService } from '../agents/agents.service';
import type { EventsService } from '../webhooks/events.service';

/** Whether a run in this status ends a wait (POST …/messages with wait_ms, GET with wait). */
const endsWait = (status: RunStatus) => RUN_WAIT_ENDS.includes(status);

/** Waiters re-read Postgres this often even without a notification. */
const POLL_MS = 250;

/** A wait's own end, in place of the default (the run completed, failed, expired or requires action). */
export interface RunWaitEnd {
  /** The statuses whose notification is worth a read (a notification naming no status always wakes). */
  wakesOn: (status: RunStatus) => boolean;
  /** Whether the run as read ends the wait. */
  ends: (run: RunObject) => boolean;
}

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

  constructor(private readonly deps: { db: Kysely<DB>; workflows: WorkflowGateway; notifier: RunNotifier; agents: Pick<AgentsService, 'getVersion'>; events: EventsService }) {}

  async getRun(input: Scope & { runId: string }): Promise<RunObject> {
    return present(await this.view(input.runId, scopeOf(input)));
  }

  /** A run just created, as it stands (queued, no tool calls): what a post with wait_ms 0 answers, with no read. */
  presentNew(run: RunRow, metadata: Record<string, string>): RunObject {
    return toRunObject(run, [], metadata);
  }

  private async view(runId: string, scope?: Scope): Promise<RunView> {
    const view = await this.repo.getView(this.deps.db, runId, scope);
    if (!view) throw notFound('run', runId);
    return view;
  }

  /**
   * Waits up to `waitMs` for the run to complete, fail, expire or require action (or for `until`, see
   * RunWaitEnd); returns it as it stands.
   */
  async waitForRun(input: { runId: string; waitMs: number; signal?: AbortSignal; justStarted?: boolean; until?: RunWaitEnd }): Promise<RunObject> {
    const { until } = input;
    const deadline = Date.now() + input.waitMs;
    // `justStarted`: the caller has just created and started the run, so it has not ended yet: the first
    // read waits for the run's first notification (or the poll interval).
    let read = !input.justStarted;
    for (;;) {
      const remaining = deadline - Date.now();
      // Subscribed before reading, so a change between the read and the wait is not missed.
      // A notification naming a status the wait does not end on (in_progress) costs no read.
      const wake = remaining > 0 ? this.deps.notifier.next(input.runId, Math.min(POLL_MS, remaining), input.signal, until?.wakesOn ?? endsWait) : undefined;
      if (read || !wake) {
        const run = present(await this.view(input.runId));
        if (!wake || (until ? until.ends(run) : endsWait(run.status)) || input.signal?.aborted) return run;
      }
      read = true;
      await wake;
    }
  }

  /**
   * The run's stream: stored events after `afterSeq`, then live ones until run.completed (or the client
   * leaves). Resuming with Last-Event-ID gives exactly what was missed.
   */
  async *streamEvents(input: Scope & { runId: string; afterSeq: number; signal?: AbortSignal }): AsyncGenerator<RunStreamEvent> {
    const { run } = await this.view(input.runId, scopeOf(input));
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
    const { run, call } = await this.resolvable(scopeOf(input), input.runId, input.toolCallId);
    if (call.status === 'expired' || (call.status === 'pending_result' && call.expires_at && call.expires_at.getTime() <= Date.now()) || run.status === 'expired') {
      throw new AppError('tool_result_expired', `The result of ${call.id} arrived after the run stopped waiting for it`, { param: 'tool_call_id' });
    }
    const moved = await moveToolCall(db, call.id, 'submitResult', 'ok', { result: JSON.stringify(redactDeep(input.result)) });
    if (!moved) {
      const now = await this.repo.getToolCall(db, run.id, call.id);
      if (now?.status === 'expired') throw new AppError('tool_result_expired', `The result of ${call.id} arrived after the run stopped waiting for it`, { param: 'tool_call_id' });
      throw new AppError('tool_call_not_pending', `Tool call ${call.id} is not waiting for a result (it is ${now?.status})`, { param: 'tool_call_id' });
    }
    await this.deps.workflows.signalIfRunning(agentRunWorkflowId(run.id), toolCallResolvedSignal, { toolCallId: call.id });
    return present(await this.view(run.id));
  }

  /**
   * Approves or rejects a tool call gated by requires_approval, as `approver` (a teammate or an API key)
   * whose role is `approverRole`: agent and above, or only the roles the tool names (`approver_roles`).
   * The decision, the approver and the time are recorded on the tool call (the run object shows them),
   * in the run's stream (`run.approval`) and as the `run.approval` webhook event, in one transaction.
   */
  async decideApproval(input: Scope & { runId: string; toolCallId: string; decision: 'approve' | 'reject'; note?: string; approver: Approver; approverRole: Role }): Promise<RunObject> {
    const { run, call } = await this.resolvable(scopeOf(input), input.runId, input.toolCallId);
    const expired = () => new AppError('approval_expired', `The approval of ${call.id} came after the run stopped waiting for it`, { param: 'tool_call_id' });
    if (call.status === 'expired' || (call.status === 'awaiting_approval' && call.expires_at && call.expires_at.getTime() <= Date.now())) throw expired();
    const allowed = await this.approverRolesOf(run, call.tool);
    if (!allowed.includes(input.approverRole)) {
      throw new AppError('role_insufficient', `A call of ${call.tool} is approved by ${allowed.join(', ')} only (this has ${input.approverRole})`);
    }
    const note = input.note ? redactText(input.note).text : null;
    const decidedAt = new Date();
    const decided = { decision_note: note, decided_by: JSON.stringify(input.approver), decided_at: decidedAt };
    const moved = await this.deps.events.transaction(async (tx) => {
      const m = input.decision === 'approve' ? await moveToolCall(tx, call.id, 'approve', 'approved', decided) : await moveToolCall(tx, call.id, 'reject', 'rejected', decided);
      if (!m) return undefined;
      const approval = { run_id: run.id, tool_call_id: call.id, tool: call.tool, decision: input.decision, note, approver: input.approver, decided_at: decidedAt.toISOString() };
      await this.repo.appendEvents(tx, run.id, [{ type: 'run.approval', data: approval }]);
      const view = (await this.repo.getView(tx, run.id))!;
      await this.deps.events.emit(
        { accountId: run.account_id, livemode: run.livemode, type: 'run.approval', data: { ...present(view), approval }, eventId: derivedId(IdPrefix.event, run.id, 'run.approval', call.id) },
        { tx },
      );
      return m;
    });
    if (!moved) {
      const now = await this.repo.getToolCall(this.deps.db, run.id, call.id);
      if (now?.status === 'expired') throw expired();
      throw new AppError('tool_call_not_pending', `Tool call ${call.id} is not awaiting approval (it is ${now?.status})`, { param: 'tool_call_id' });
    }
    this.deps.notifier.notifyLocally(run.id, undefined);
    await this.deps.workflows.signalIfRunning(agentRunWorkflowId(run.id), toolCallResolvedSignal, { toolCallId: call.id });
    return present(await this.view(run.id));
  }

  /** Of these conversations (at most a page), those with a run waiting for a tool approval: the inbox's badge. */
  async conversationsAwaitingApproval(input: Scope & { conversationIds: string[] }): Promise<Set<string>> {
    return this.repo.conversationsAwaitingApproval(this.deps.db, scopeOf(input), input.conversationIds.slice(0, 200));
  }

  /** The roles that may approve a call of `tool` in this run's agent version: its `approver_roles`, else agent and above. */
  async approverRolesOf(run: { agent_id: string; agent_version: number }, tool: string): Promise<Role[]> {
    const version = await this.deps.agents.getVersion({ agentId: run.agent_id, version: run.agent_version });
    return [...(version.config.tools.find((t) => t.name === tool)?.approver_roles ?? APPROVER_ROLES)];
  }

  /** The run (in scope) and the tool call to resolve, or 404. */
  private async resolvable(scope: Scope, runId: string, toolCallId: string) {
    const { run, calls } = await this.view(runId, scope);
    const call = calls.find((c) => c.id === toolCallId);
    if (!call) throw referenceMissing('tool call', toolCallId, 'tool_call_id');
    return { run, call };
  }
}

const present = (view: RunView): RunObject => toRunObject(view.run, view.calls, view.metadata);
