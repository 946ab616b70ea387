import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { ConversationChannel, RunStatus, RunTable, RunToolCallTable, ToolCallStatus } from '../db/tables/agents';
import type { RunNotifyTarget } from './run-notifier';

type Db = Kysely<DB> | Transaction<DB>;
export type RunRow = Selectable<RunTable>;
export type ToolCallRow = Selectable<RunToolCallTable>;
export type { RunStatus, ToolCallStatus };

/**
 * The life of a run and of its tool calls: every state, every move between states, and the only code
 * that changes either status. Each move is a conditional update (`where status in from`), so moves are
 * forward-only and a retried step, or a second decision racing the first, changes nothing.
 *
 * A run (SPEC "Run status"):
 *
 *   (posted) → queued ─start→ in_progress ─requireAction→ requires_action ─resume→ in_progress
 *                 │                │                            │
 *                 └────────────────┴─complete / fail────────────┴─→ completed | failed
 *                                  └─expire─────────────────────┴─→ expired
 *
 * A tool call (one planner request to call a tool):
 *
 *   (planned) → ready | awaiting_approval | invalid
 *   awaiting_approval ─approve→ approved | ─reject→ rejected | ─expire→ expired
 *   ready | approved ─call→ calling ─answer→ ok | error | timed_out | pending_result
 *   calling ─call→ calling (a retried attempt of an idempotent tool) | ─abandon→ error (non-idempotent)
 *   pending_result ─submitResult→ ok | ─expire→ expired
 */

/** Every state of a run, in the order a run goes through them (SPEC's run statuses). */
export const RUN_STATUSES = ['queued', 'in_progress', 'requires_action', 'completed', 'failed', 'expired'] as const satisfies readonly RunStatus[];

/** A finished run: no move leaves these. The one "is it finished". */
export const TERMINAL_RUN_STATUSES = ['completed', 'failed', 'expired'] as const satisfies readonly RunStatus[];
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];
export const isTerminalRun = (status: RunStatus): status is TerminalRunStatus => (TERMINAL_RUN_STATUSES as readonly RunStatus[]).includes(status);

/** Where a waiter (a POST waiting for its run, a voice turn) stops waiting: finished, or someone else must act. */
export const RUN_WAIT_ENDS: readonly RunStatus[] = [...TERMINAL_RUN_STATUSES, 'requires_action'];

/** A new run (a customer message posted with trigger_run) starts here. */
export const NEW_RUN_STATUS = 'queued' satisfies RunStatus;

/** The run's moves: from which statuses each is allowed, and where it leads. */
export const RUN_TRANSITIONS = {
  /** The conversation's earlier runs have finished: the run starts (run.started). */
  start: { from: ['queued'], to: 'in_progress' },
  /** Tool calls to approve, or async results to await (run.requires_action). */
  requireAction: { from: ['in_progress'], to: 'requires_action' },
  /** The wait is over (decided, submitted or timed out): the agent resumes. */
  resume: { from: ['requires_action'], to: 'in_progress' },
  /** A reply and/or a handoff (run.completed). */
  complete: { from: ['queued', 'in_progress', 'requires_action'], to: 'completed' },
  /** An unrecoverable error: no reply (run.completed with status failed). */
  fail: { from: ['queued', 'in_progress', 'requires_action'], to: 'failed' },
  /** A required action not fulfilled in time: no reply (run.completed with status expired). */
  expire: { from: ['in_progress', 'requires_action'], to: 'expired' },
} as const satisfies Record<string, { from: readonly RunStatus[]; to: RunStatus }>;
export type RunMove = keyof typeof RUN_TRANSITIONS;

/** Every state of a tool call. */
export const TOOL_CALL_STATUSES = [
  'ready', 'awaiting_approval', 'invalid', 'approved', 'rejected', 'calling', 'pending_result', 'ok', 'error', 'timed_out', 'expired',
] as const satisfies readonly ToolCallStatus[];

/** A tool call is created in one of these (see `plannedToolCallStatus`). */
export const NEW_TOOL_CALL_STATUSES = ['ready', 'awaiting_approval', 'invalid'] as const satisfies readonly ToolCallStatus[];

/** A tool call with an outcome the planner reads on its next turn: nothing moves it again. */
export const TERMINAL_TOOL_CALL_STATUSES = ['ok', 'error', 'timed_out', 'rejected', 'expired', 'invalid'] as const satisfies readonly ToolCallStatus[];
export const isTerminalToolCall = (status: ToolCallStatus) => (TERMINAL_TOOL_CALL_STATUSES as readonly ToolCallStatus[]).includes(status);

/** The tool call's moves. `to` lists every status the move may lead to (the caller names one). */
export const TOOL_CALL_TRANSITIONS = {
  /** An approver says yes (POST /v1/runs/{id}/approvals). */
  approve: { from: ['awaiting_approval'], to: ['approved'] },
  /** An approver says no: the run hands off (approval_rejected). */
  reject: { from: ['awaiting_approval'], to: ['rejected'] },
  /** The request goes out; `calling` again is an idempotent tool's retried attempt after its worker died. */
  call: { from: ['ready', 'approved', 'calling'], to: ['calling'] },
  /** The tool answered (or did not in time; 202 pending: an async result is awaited). */
  answer: { from: ['calling'], to: ['ok', 'error', 'timed_out', 'pending_result'] },
  /** The worker died mid-call of a non-idempotent tool: it may have reached the tool, so it is not resent. */
  abandon: { from: ['calling'], to: ['error'] },
  /** The async result arrived before the run stopped waiting (POST /v1/runs/{id}/tool_results). */
  submitResult: { from: ['pending_result'], to: ['ok'] },
  /** The run stopped waiting for an approval or a result. */
  expire: { from: ['awaiting_approval', 'pending_result'], to: ['expired'] },
} as const satisfies Record<string, { from: readonly ToolCallStatus[]; to: readonly ToolCallStatus[] }>;
export type ToolCallMove = keyof typeof TOOL_CALL_TRANSITIONS;

/** A planned call's first status: invalid arguments are never sent; a gated tool waits for an approver. */
export function plannedToolCallStatus(input: { valid: boolean; requiresApproval: boolean }): (typeof NEW_TOOL_CALL_STATUSES)[number] {
  if (!input.valid) return 'invalid';
  return input.requiresApproval ? 'awaiting_approval' : 'ready';
}

/** The row of a new run: queued behind the conversation's earlier runs. */
export function newRunRow(input: {
  id: string;
  accountId: string;
  livemode: boolean;
  conversationId: string;
  messageId: string;
  agentId: string;
  agentVersion: number;
  channel: ConversationChannel;
}): Insertable<RunTable> {
  return {
    id: input.id,
    account_id: input.accountId,
    livemode: input.livemode,
    conversation_id: input.conversationId,
    message_id: input.messageId,
    agent_id: input.agentId,
    agent_version: input.agentVersion,
    channel: input.channel,
    status: NEW_RUN_STATUS,
    confidence: null,
    retrieval: JSON.stringify([]),
    decision: null,
    reply: null,
    handoff: null,
    usage: JSON.stringify({ input_tokens: 0, output_tokens: 0 }),
    error: null,
    guardrail_notes: JSON.stringify([]),
    required_action: null,
    reply_message_id: null,
    started_at: null,
    completed_at: null,
  };
}

/** An event of the run's stream (GET /v1/runs/{id}/events): run.started, tool.called, reply.delta, … */
export interface RunEventInput {
  type: string;
  data: Record<string, unknown>;
}

/** A moved run, with the conversation's next queued run (to signal once this one finished). */
export type MovedRun = RunRow & { next_queued_run_id: string | null };

/**
 * Moves the run (`RUN_TRANSITIONS[move]`), sets `set` and appends `events` to its stream, in one statement;
 * undefined when the run was not in a status the move starts from (a retried step, or another move won).
 * The events are numbered after the stream's last one; two writers appending at once collide on the
 * stream's key and the loser's statement fails whole (its step is retried). `notify`: a channel to
 * pg_notify `<run id>:<new status>:<origin>` on when the move commits (RunNotifier wakes other processes' waiters).
 */
export async function moveRun(
  db: Db,
  runId: string,
  move: RunMove,
  opts: { set?: Partial<Record<keyof RunTable, unknown>>; events?: RunEventInput[]; notify?: RunNotifyTarget } = {},
): Promise<MovedRun | undefined> {
  const { from, to } = RUN_TRANSITIONS[move];
  const events = JSON.stringify(opts.events ?? []);
  let q = db
    .with('moved', (qb) =>
      qb
        .updateTable('runs')
        .set({ ...(opts.set as object), status: to, updated_at: new Date() })
        .where('id', '=', runId)
        .where('status', 'in', from as readonly RunStatus[] as RunStatus[])
        .returningAll(),
    )
    .with('appended', (qb) =>
      qb
        .insertInto('run_events')
        .columns(['run_id', 'seq', 'type', 'data'])
        .expression(
          sql`select m.id, coalesce((select max(e.seq) from run_events e where e.run_id = m.id), 0) + n.ord, n.ev->>'type', n.ev->'data'
              from moved m, jsonb_array_elements(${events}::jsonb) with ordinality as n(ev, ord)`,
        ),
    )
    .selectFrom('moved')
    .selectAll('moved')
    .select(
      sql<string | null>`(select q.id from runs q where q.conversation_id = moved.conversation_id and q.status = 'queued'
        and (q.created_at, q.id) > (moved.created_at, moved.id) order by q.created_at, q.id limit 1)`.as('next_queued_run_id'),
    );
  if (opts.notify) q = q.select(sql<unknown>`pg_notify(${opts.notify.channel}, moved.id || ':' || moved.status || ':' || ${opts.notify.origin}::text)`.as('notified'));
  const row = (await q.executeTakeFirst()) as (MovedRun & { notified?: unknown }) | undefined;
  if (!row) return undefined;
  const { notified: _notified, ...moved } = row;
  return moved;
}

/**
 * Moves one tool call (`TOOL_CALL_TRANSITIONS[move]`) to `to` (one of the move's targets), with `set`;
 * undefined when the call was not in a status the move starts from (someone else won).
 */
export async function moveToolCall<M extends ToolCallMove>(
  db: Db,
  toolCallId: string,
  move: M,
  to: (typeof TOOL_CALL_TRANSITIONS)[M]['to'][number],
  set: Partial<Record<keyof RunToolCallTable, unknown>> = {},
): Promise<ToolCallRow | undefined> {
  const transition = TOOL_CALL_TRANSITIONS[move];
  if (!(transition.to as readonly ToolCallStatus[]).includes(to)) throw new Error(`A tool call's ${move} does not lead to ${to}`);
  return db
    .updateTable('run_tool_calls')
    .set({ ...(set as object), status: to, updated_at: new Date() })
    .where('id', '=', toolCallId)
    .where('status', 'in', transition.from as readonly ToolCallStatus[] as ToolCallStatus[])
    .returningAll()
    .executeTakeFirst();
}

/** Expires those of the calls still awaiting an approval or a result (the run stopped waiting). */
export async function expireToolCalls(db: Db, toolCallIds: string[]): Promise<void> {
  if (toolCallIds.length === 0) return;
  await db
    .updateTable('run_tool_calls')
    .set({ status: 'expired', updated_at: new Date() })
    .where('id', 'in', toolCallIds)
    .where('status', 'in', TOOL_CALL_TRANSITIONS.expire.from as readonly ToolCallStatus[] as ToolCallStatus[])
    .execute();
}

// What the agent run workflow's steps (RunStepsService) answer, in SPEC's run statuses.

/**
 * startRun's answer in SPEC's run statuses: `queued` (an earlier run of the conversation has not finished:
 * wait for it), `in_progress` (go on; `decided`: a guardrail already decided the run's last word, finish
 * it now), or the status of a run that has already finished.
 */
export type StartRunResult = { status: 'queued' } | { status: 'in_progress'; decided?: true } | { status: TerminalRunStatus };
export type PlanStepResult = { type: 'reply' | 'handoff' } | { type: 'tool_calls'; calls: { id: string; status: ToolCallStatus }[] };
/**
 * `deliver`: the run wrote a reply its channel sends after the run (the workflow then calls deliverReply);
 * `notice`: it handed off with a notice the channel sends after the run (deliverHandoffNotice).
 */
export type FinishRunResult = { status: TerminalRunStatus; deliver: boolean; notice?: boolean };
