import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { ConversationRole, ConversationTable, RunTable, RunToolCallTable } from '../db/tables/agents';
import { inScope, type Scope } from '../db/scope';
import { TERMINAL_RUN_STATUSES, type RunEventInput, type RunRow, type ToolCallRow } from './run-lifecycle';

type Db = Kysely<DB> | Transaction<DB>;
export type { RunEventInput, RunRow, ToolCallRow };
/** The conversation a run answers in, as a step loads it (read only: conversations writes it). */
export type RunConversationRow = Selectable<ConversationTable>;

/** Everything a run step reads, loaded by one statement (RunRepo.loadStep). */
export interface RunStepContext {
  run: RunRow;
  /** The customer message the run answers. */
  message: { id: string; seq: number; content: string };
  conversation: RunConversationRow;
  calls: ToolCallRow[];
  /** With `earlierOpenRun`: the conversation's oldest unfinished run created before this one (runs answer in order). */
  earlierOpenRunId?: string | null;
  /** With `transcript`: the latest turns before the message, oldest first (handoff notices left out; a proactive message the visitor answered is the agent's turn). */
  transcript?: { role: Exclude<ConversationRole, 'system'>; content: string }[];
}

/** A run as the API shows it: the row, its tool calls and its conversation's metadata, read together. */
export interface RunView {
  run: RunRow;
  calls: ToolCallRow[];
  metadata: Record<string, string>;
}

/** jsonb_agg / to_jsonb turn timestamps into strings: back to Dates, as a selected row has them. */
const dated = <T extends Record<string, unknown>>(row: T, keys: string[]): T => {
  const out: Record<string, unknown> = { ...row };
  for (const k of keys) if (typeof out[k] === 'string') out[k] = new Date(out[k] as string);
  return out as T;
};
const toolCallsOf = (json: unknown): ToolCallRow[] => ((json ?? []) as ToolCallRow[]).map((c) => dated(c, ['expires_at', 'decided_at', 'created_at', 'updated_at']));
const TOOL_CALLS_OF_RUN = sql<unknown>`coalesce((select jsonb_agg(t order by t.seq) from run_tool_calls t where t.run_id = r.id), '[]'::jsonb)`;

/** The runs columns stored as jsonb (an Insertable carries them as JSON text). */
const RUN_JSON_COLUMNS: ReadonlySet<string> = new Set(['retrieval', 'decision', 'reply', 'handoff', 'usage', 'error', 'guardrail_notes', 'required_action']);

/**
 * SQL that inserts `row` into runs only when the CTE `after` of the same statement produced a row (a
 * customer message and the run answering it are written by one statement: ConversationRepo).
 */
export function insertRunAfter(row: Insertable<RunTable>, after: string) {
  const columns = Object.keys(row);
  const record = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, RUN_JSON_COLUMNS.has(k) && typeof v === 'string' ? JSON.parse(v) : v]));
  return {
    columns: columns as (keyof RunTable & string)[],
    select: sql`select ${sql.join(columns.map((c) => sql.ref(`p.${c}`)))} from jsonb_populate_record(null::runs, ${JSON.stringify(record)}::jsonb) p
      where exists (select 1 from ${sql.table(after)})`,
  };
}

/** A runs row read back as jsonb (to_jsonb), with its timestamps as Dates again. */
export const runFromJson = (json: unknown): RunRow => dated(json as RunRow, ['created_at', 'updated_at', 'started_at', 'completed_at']);

/** Runs, their tool calls and their event streams. Statuses change only through run-lifecycle.ts. */
export class RunRepo {
  async insertRun(db: Db, row: Insertable<RunTable>) {
    return db.insertInto('runs').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getRun(db: Db, id: string) {
    return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * A run step's reads in one statement: the run, its customer message, its conversation and its tool
   * calls; on request the earlier unfinished run (startRun) and the transcript before the message.
   */
  async loadStep(db: Db, runId: string, opts: { earlierOpenRun?: boolean; transcript?: number } = {}): Promise<RunStepContext | undefined> {
    let q = db
      .selectFrom('runs as r')
      .innerJoin('conversation_messages as m', 'm.id', 'r.message_id')
      .innerJoin('conversations as c', 'c.id', 'r.conversation_id')
      .selectAll('r')
      .select(['m.seq as message_seq', 'm.content as message_content', sql<RunConversationRow>`to_jsonb(c)`.as('conversation_json'), TOOL_CALLS_OF_RUN.as('tool_calls_json')])
      .where('r.id', '=', runId);
    if (opts.earlierOpenRun) {
      q = q.select(
        sql<string | null>`(select q.id from runs q where q.conversation_id = r.conversation_id and q.status not in (${sql.join(TERMINAL_RUN_STATUSES)})
          and (q.created_at, q.id) < (r.created_at, r.id) order by q.created_at, q.id limit 1)`.as('earlier_open_run_id'),
      );
    }
    if (opts.transcript) {
      q = q.select(
        sql<unknown>`(select coalesce(jsonb_agg(jsonb_build_object('role', x.role, 'content', x.content) order by x.seq), '[]'::jsonb)
          from (select case when kind = 'proactive' then 'agent' else role end as role, content, seq from conversation_messages
            where conversation_id = r.conversation_id and seq < m.seq and (role <> 'system' or kind = 'proactive') order by seq desc limit ${opts.transcript}) x)`.as('transcript_json'),
      );
    }
    const row = (await q.executeTakeFirst()) as (RunRow & Record<string, unknown>) | undefined;
    if (!row) return undefined;
    const { message_seq, message_content, conversation_json, tool_calls_json, earlier_open_run_id, transcript_json, ...run } = row;
    return {
      run: run as unknown as RunRow,
      message: { id: row.message_id, seq: message_seq as number, content: message_content as string },
      conversation: dated(conversation_json as RunConversationRow, ['created_at', 'updated_at', 'closed_at']),
      calls: toolCallsOf(tool_calls_json),
      ...(opts.earlierOpenRun ? { earlierOpenRunId: (earlier_open_run_id as string | null) ?? null } : {}),
      ...(opts.transcript ? { transcript: transcript_json as RunStepContext['transcript'] } : {}),
    };
  }

  /** The run, its tool calls and its conversation's metadata in one statement (within `scope` when given). */
  async getView(db: Db, runId: string, scope?: Scope): Promise<RunView | undefined> {
    let q = db
      .selectFrom('runs as r')
      .selectAll('r')
      .select([TOOL_CALLS_OF_RUN.as('tool_calls_json'), sql<Record<string, string> | null>`(select c.metadata from conversations c where c.id = r.conversation_id)`.as('conversation_metadata')])
      .where('r.id', '=', runId);
    if (scope) q = q.where(inScope(scope, 'r'));
    const row = await q.executeTakeFirst();
    if (!row) return undefined;
    const { tool_calls_json, conversation_metadata, ...run } = row;
    return { run: run as RunRow, calls: toolCallsOf(tool_calls_json), metadata: conversation_metadata ?? {} };
  }

  async updateRun(db: Db, id: string, set: Partial<Record<keyof RunTable, unknown>>) {
    await db.updateTable('runs').set({ ...(set as object), updated_at: new Date() }).where('id', '=', id).execute();
  }

  async lockRun(db: Transaction<DB>, id: string) {
    return db.selectFrom('runs').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
  }

  // ── tool calls (their status changes in run-lifecycle.ts) ────────────────
  async insertToolCalls(db: Db, rows: Insertable<RunToolCallTable>[]) {
    if (rows.length === 0) return;
    await db.insertInto('run_tool_calls').values(rows).onConflict((oc) => oc.column('id').doNothing()).execute();
  }

  /** Of these conversations, those with a run waiting for a tool approval (the inbox's badge). */
  async conversationsAwaitingApproval(db: Db, scope: Scope, conversationIds: string[]): Promise<Set<string>> {
    if (conversationIds.length === 0) return new Set();
    const rows = await db
      .selectFrom('runs as r')
      .select('r.conversation_id')
      .distinct()
      .where(inScope(scope, 'r'))
      .where('r.conversation_id', 'in', conversationIds)
      .where('r.status', '=', 'requires_action')
      .where(sql<boolean>`r.required_action->>'type' = 'approve_tool_call'`)
      .execute();
    return new Set(rows.map((r) => r.conversation_id));
  }

  async listToolCalls(db: Db, runId: string) {
    return db.selectFrom('run_tool_calls').selectAll().where('run_id', '=', runId).orderBy('seq').execute();
  }

  async getToolCall(db: Db, runId: string, id: string) {
    return db.selectFrom('run_tool_calls').selectAll().where('run_id', '=', runId).where('id', '=', id).executeTakeFirst();
  }

  async setToolCallsExpiry(db: Db, ids: string[], expiresAt: Date) {
    if (ids.length === 0) return;
    await db.updateTable('run_tool_calls').set({ expires_at: expiresAt, updated_at: new Date() }).where('id', 'in', ids).execute();
  }

  // ── stream events ────────────────────────────────────────────────────────
  /** Appends events to the run's stream, numbered after the last one, in one statement (the caller holds the run's lock). */
  async appendEvents(db: Db, runId: string, events: RunEventInput[]) {
    if (events.length === 0) return;
    await sql`insert into run_events (run_id, seq, type, data)
      select ${runId}, coalesce((select max(e.seq) from run_events e where e.run_id = ${runId}), 0) + n.ord, n.ev->>'type', n.ev->'data'
      from jsonb_array_elements(${JSON.stringify(events)}::jsonb) with ordinality as n(ev, ord)`.execute(db);
  }

  async listEventsAfter(db: Db, runId: string, afterSeq: number) {
    return db.selectFrom('run_events').selectAll().where('run_id', '=', runId).where('seq', '>', afterSeq).orderBy('seq').execute();
  }
}
