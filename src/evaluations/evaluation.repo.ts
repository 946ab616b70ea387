import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { paginate, type PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { inScope, type Scope } from '../db/scope';
import type { AgentTestCaseTable, EvaluationCaseResultTable, EvaluationTable } from '../db/tables/evaluations';

type Db = Kysely<DB> | Transaction<DB>;
export type TestCaseRow = Selectable<AgentTestCaseTable>;
export type EvaluationRow = Selectable<EvaluationTable>;
export type CaseResultRow = Selectable<EvaluationCaseResultTable>;

/** Test cases, evaluations and their per-case results. */
export class EvaluationRepo {
  async insertTestCase(db: Db, row: Insertable<AgentTestCaseTable>) {
    return db.insertInto('agent_test_cases').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async updateTestCase(db: Db, id: string, set: { name: string; definition: string }) {
    return db.updateTable('agent_test_cases').set({ ...set, updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  async deleteTestCases(db: Db, ids: string[]) {
    if (ids.length === 0) return;
    await db.deleteFrom('agent_test_cases').where('id', 'in', ids).execute();
  }

  async getTestCase(db: Db, scope: Scope, agentId: string, id: string) {
    return db.selectFrom('agent_test_cases').selectAll().where(inScope(scope)).where('agent_id', '=', agentId).where('id', '=', id).executeTakeFirst();
  }

  async getTestCaseByName(db: Db, agentId: string, name: string) {
    return db.selectFrom('agent_test_cases').selectAll().where('agent_id', '=', agentId).where('name', '=', name).executeTakeFirst();
  }

  /** A case by id only, for a run's tool call (the caller checks the account). */
  async getTestCaseById(db: Db, id: string) {
    return db.selectFrom('agent_test_cases').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listTestCasesPage(db: Kysely<DB>, scope: Scope, agentId: string, page: PageParams) {
    return paginate(db, 'agent_test_cases', db.selectFrom('agent_test_cases').selectAll().where(inScope(scope)).where('agent_id', '=', agentId), page);
  }

  /** Every case of the agent, oldest first. */
  async listTestCases(db: Db, agentId: string) {
    return db.selectFrom('agent_test_cases').selectAll().where('agent_id', '=', agentId).orderBy('created_at').orderBy('id').execute();
  }

  async insertEvaluation(db: Db, row: Insertable<EvaluationTable>) {
    return db.insertInto('evaluations').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getEvaluation(db: Db, id: string, scope?: Scope) {
    let q = db.selectFrom('evaluations').selectAll().where('id', '=', id);
    if (scope) q = q.where(inScope(scope));
    return q.executeTakeFirst();
  }

  async listEvaluations(db: Kysely<DB>, scope: Scope, page: PageParams, filter: { agentId?: string }) {
    let q = db.selectFrom('evaluations').selectAll().where(inScope(scope));
    if (filter.agentId) q = q.where('agent_id', '=', filter.agentId);
    return paginate(db, 'evaluations', q, page);
  }

  /** The agent's latest evaluation of `agentVersion` (completed only, unless `anyStatus`). */
  async latestEvaluationOfVersion(db: Db, agentId: string, agentVersion: number, opts: { completed: boolean; excludeId?: string }) {
    let q = db.selectFrom('evaluations').selectAll().where('agent_id', '=', agentId).where('agent_version', '=', agentVersion);
    if (opts.completed) q = q.where('status', '=', 'completed');
    if (opts.excludeId) q = q.where('id', '!=', opts.excludeId);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  /** The agent's latest evaluation of a draft snapshot (negative version), whatever its status. */
  async latestDraftEvaluation(db: Db, agentId: string) {
    return db.selectFrom('evaluations').selectAll().where('agent_id', '=', agentId).where('agent_version', '<', 0).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  /** Marks the evaluation completed once (a retried completion changes nothing); the row when this call did it. */
  async completeEvaluation(db: Db, id: string, comparison: string) {
    return db
      .updateTable('evaluations')
      .set({ status: 'completed', comparison, completed_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .returningAll()
      .executeTakeFirst();
  }

  /** Records a case's result once: a case evaluated again after a crash keeps its first result. */
  async insertCaseResult(db: Db, row: Insertable<EvaluationCaseResultTable>) {
    await db
      .insertInto('evaluation_case_results')
      .values(row)
      .onConflict((oc) => oc.columns(['evaluation_id', 'case_id']).doNothing())
      .execute();
  }

  async getCaseResult(db: Db, evaluationId: string, caseId: string) {
    return db.selectFrom('evaluation_case_results').selectAll().where('evaluation_id', '=', evaluationId).where('case_id', '=', caseId).executeTakeFirst();
  }

  async listCaseResults(db: Db, evaluationIds: string[]) {
    if (evaluationIds.length === 0) return [];
    return db.selectFrom('evaluation_case_results').selectAll().where('evaluation_id', 'in', evaluationIds).orderBy('position').execute();
  }

  /** The required actions a run asked for (its run.requires_action stream events), in order. */
  async listRequiredActions(db: Db, runId: string): Promise<Record<string, unknown>[]> {
    const rows = await db.selectFrom('run_events').select('data').where('run_id', '=', runId).where('type', '=', 'run.requires_action').orderBy('seq').execute();
    return rows.map((r) => (r.data as { required_action?: Record<string, unknown> }).required_action ?? {});
  }

  /**
   * Everything stored about one conversation, as text: the conversation, its messages, its runs, their
   * tool calls and stream events, and the webhook events about them (for the `redacted` expectation).
   */
  async storedTextOfConversation(db: Db, conversationId: string): Promise<string> {
    const rows = await sql<{ t: string | null }>`
      select to_jsonb(c)::text as t from conversations c where c.id = ${conversationId}
      union all select to_jsonb(m)::text from conversation_messages m where m.conversation_id = ${conversationId}
      union all select to_jsonb(r)::text from runs r where r.conversation_id = ${conversationId}
      union all select to_jsonb(t)::text from run_tool_calls t join runs r on r.id = t.run_id where r.conversation_id = ${conversationId}
      union all select to_jsonb(e)::text from run_events e join runs r on r.id = e.run_id where r.conversation_id = ${conversationId}
      union all select to_jsonb(v)::text from events v
        where v.account_id = (select account_id from conversations where id = ${conversationId})
        and v.created_at >= (select created_at from conversations where id = ${conversationId})
        and (v.data->>'conversation_id' = ${conversationId}
        or v.data->>'id' = ${conversationId}
        or v.data->>'run_id' in (select id from runs where conversation_id = ${conversationId})
        or v.data->>'id' in (select id from runs where conversation_id = ${conversationId}))
    `.execute(db);
    // jsonb text escapes non-ASCII and quotes; the raw values are compared too (unescaped JSON strings).
    return rows.rows.map((r) => `${r.t ?? ''}\n${unescapeJsonText(r.t ?? '')}`).join('\n');
  }
}

/** The string values of a JSON text with their escapes undone (so "a \"b\"" is searched as a "b"). */
function unescapeJsonText(text: string): string {
  try {
    const out: string[] = [];
    JSON.parse(text, (_k, v: unknown) => {
      if (typeof v === 'string') out.push(v);
      return v;
    });
    return out.join('\n');
  } catch {
    return text;
  }
}
