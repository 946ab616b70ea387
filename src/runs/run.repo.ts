import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { RunStatus, RunTable, RunToolCallTable, ToolCallStatus } from '../db/tables/agents';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;
export type RunRow = Selectable<RunTable>;
export type ToolCallRow = Selectable<RunToolCallTable>;

export const TERMINAL_RUN_STATUSES: RunStatus[] = ['completed', 'failed', 'expired'];

/** Forward-only run transitions, enforced by conditional updates (as ALLOWED_FROM for messages). */
export const RUN_ALLOWED_FROM: Record<RunStatus, RunStatus[]> = {
  queued: [],
  in_progress: ['queued', 'requires_action'],
  requires_action: ['in_progress'],
  completed: ['queued', 'in_progress', 'requires_action'],
  failed: ['queued', 'in_progress', 'requires_action'],
  expired: ['requires_action', 'in_progress'],
};

export interface RunEventInput {
  type: string;
  data: Record<string, unknown>;
}

export class RunRepo {
  async insertRun(db: Db, row: Insertable<RunTable>) {
    return db.insertInto('runs').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getRun(db: Db, id: string) {
    return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getRunById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('runs').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async getRunsByIds(db: Db, ids: string[]) {
    if (ids.length === 0) return [];
    return db.selectFrom('runs').selectAll().where('id', 'in', ids).execute();
  }

  /** The oldest run of the conversation created before this one that has not finished yet. */
  async findEarlierOpenRun(db: Db, run: { id: string; conversation_id: string; created_at: Date }) {
    return db
      .selectFrom('runs')
      .select(['id', 'status'])
      .where('conversation_id', '=', run.conversation_id)
      .where('status', 'not in', TERMINAL_RUN_STATUSES)
      .where(sql<boolean>`(created_at, id) < (select r.created_at, r.id from runs r where r.id = ${run.id})`)
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  /** The next run of the conversation still waiting for this one (to signal it). */
  async findNextQueuedRun(db: Db, run: { id: string; conversation_id: string }) {
    return db
      .selectFrom('runs')
      .select('id')
      .where('conversation_id', '=', run.conversation_id)
      .where('status', '=', 'queued')
      .where(sql<boolean>`(created_at, id) > (select r.created_at, r.id from runs r where r.id = ${run.id})`)
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  /** Moves the run to `status` if the move is allowed from where it is; undefined otherwise. */
  async transitionRun(db: Db, id: string, status: RunStatus, set: Partial<Record<keyof RunTable, unknown>> = {}) {
    return db
      .updateTable('runs')
      .set({ ...(set as object), status, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', 'in', RUN_ALLOWED_FROM[status])
      .returningAll()
      .executeTakeFirst();
  }

  async updateRun(db: Db, id: string, set: Partial<Record<keyof RunTable, unknown>>) {
    await db.updateTable('runs').set({ ...(set as object), updated_at: new Date() }).where('id', '=', id).execute();
  }

  async lockRun(db: Transaction<DB>, id: string) {
    return db.selectFrom('runs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  // ── tool calls ───────────────────────────────────────────────────────────
  async insertToolCalls(db: Db, rows: Insertable<RunToolCallTable>[]) {
    if (rows.length === 0) return;
    await db.insertInto('run_tool_calls').values(rows).onConflict((oc) => oc.column('id').doNothing()).execute();
  }

  async listToolCalls(db: Db, runId: string) {
    return db.selectFrom('run_tool_calls').selectAll().where('run_id', '=', runId).orderBy('seq').execute();
  }

  async listToolCallsOfRuns(db: Db, runIds: string[]) {
    if (runIds.length === 0) return [];
    return db.selectFrom('run_tool_calls').selectAll().where('run_id', 'in', runIds).orderBy('seq').execute();
  }

  async getToolCall(db: Db, runId: string, id: string) {
    return db.selectFrom('run_tool_calls').selectAll().where('run_id', '=', runId).where('id', '=', id).executeTakeFirst();
  }

  async countToolCalls(db: Db, runId: string) {
    const row = await db.selectFrom('run_tool_calls').select(sql<number>`count(*)::int`.as('n')).where('run_id', '=', runId).executeTakeFirst();
    return row?.n ?? 0;
  }

  /** Moves a call from one of `from` to `status`; undefined when it was elsewhere (someone else won). */
  async transitionToolCall(db: Db, id: string, from: ToolCallStatus[], status: ToolCallStatus, set: Partial<Record<keyof RunToolCallTable, unknown>> = {}) {
    return db
      .updateTable('run_tool_calls')
      .set({ ...(set as object), status, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', 'in', from)
      .returningAll()
      .executeTakeFirst();
  }

  async setToolCallsExpiry(db: Db, ids: string[], expiresAt: Date) {
    if (ids.length === 0) return;
    await db.updateTable('run_tool_calls').set({ expires_at: expiresAt, updated_at: new Date() }).where('id', 'in', ids).execute();
  }

  async expireToolCalls(db: Db, ids: string[]) {
    if (ids.length === 0) return;
    await db
      .updateTable('run_tool_calls')
      .set({ status: 'expired', updated_at: new Date() })
      .where('id', 'in', ids)
      .where('status', 'in', ['awaiting_approval', 'pending_result'])
      .execute();
  }

  // ── stream events ────────────────────────────────────────────────────────
  /** Appends events to the run's stream, numbered after the last one (the caller holds the run's lock). */
  async appendEvents(db: Db, runId: string, events: RunEventInput[]) {
    if (events.length === 0) return;
    const last = await db.selectFrom('run_events').select(sql<number>`coalesce(max(seq), 0)::int`.as('seq')).where('run_id', '=', runId).executeTakeFirst();
    const base = last?.seq ?? 0;
    await db
      .insertInto('run_events')
      .values(events.map((e, i) => ({ run_id: runId, seq: base + i + 1, type: e.type, data: JSON.stringify(e.data) })))
      .execute();
  }

  async listEventsAfter(db: Db, runId: string, afterSeq: number) {
    return db.selectFrom('run_events').selectAll().where('run_id', '=', runId).where('seq', '>', afterSeq).orderBy('seq').execute();
  }
}
