import type { Kysely } from 'kysely';
import type { AgentsService, AgentVersion } from '../agents/agents.service';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService } from '../webhooks/events.service';
import { evaluationWorkflowContract, evaluationWorkflowId } from '../../workflows/shared/evaluations.contracts';
import { EvaluationRepo, type CaseResultRow, type EvaluationRow } from './evaluation.repo';
import type { EvaluationComparison, EvaluationObject } from './evaluation.schemas';

/** The comparison as stored: the API's, plus the cases the baseline had (to tell `unchanged` from `new`). */
export type StoredComparison = EvaluationComparison & { baseline_case_ids: string[] };

/**
 * Evaluations: an agent's test cases run against a version or a snapshot of its draft, as a workflow
 * (evaluationWorkflow: one activity per case, bounded concurrency), each case in a hidden test
 * conversation (EvaluationCaseRunner, in the worker). A completed evaluation is compared with the last
 * completed one of the live version (regressions and fixes per case) and announced (`evaluation.completed`).
 */
export class EvaluationsService {
  private readonly repo = new EvaluationRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      agents: AgentsService;
      events: EventsService;
      workflows: WorkflowGateway;
      /** Cases of one evaluation running at once. */
      concurrency: number;
    },
  ) {}

  /** Starts an evaluation of `version` (a number, or `draft`: a snapshot of the draft as it is now). */
  async createEvaluation(input: Scope & { agentId: string; version: number | 'draft'; caseIds?: string[] }): Promise<EvaluationObject> {
    const scope = scopeOf(input);
    const version = await this.resolveVersion(scope, input.agentId, input.version);
    const cases = await this.repo.listTestCases(this.deps.db, input.agentId);
    let caseIds = cases.map((c) => c.id);
    if (input.caseIds) {
      const unknown = input.caseIds.find((id) => !caseIds.includes(id));
      if (unknown) throw notFound('test case', unknown, 'case_ids');
      caseIds = [...new Set(input.caseIds)];
    }
    if (caseIds.length === 0) throw new AppError('parameter_unprocessable', `Agent ${input.agentId} has no test cases to evaluate`, { param: 'agent_id' });
    const row = await this.repo.insertEvaluation(this.deps.db, {
      id: newId(IdPrefix.evaluation),
      account_id: scope.accountId,
      livemode: scope.livemode,
      agent_id: input.agentId,
      target: input.version === 'draft' ? 'draft' : 'version',
      agent_version: version.version,
      status: 'running',
      case_ids: JSON.stringify(caseIds),
      comparison: null,
    });
    await this.deps.workflows.start(evaluationWorkflowContract, {
      workflowId: evaluationWorkflowId(row.id),
      input: { evaluationId: row.id, caseIds, concurrency: this.deps.concurrency },
      memo: { accountId: scope.accountId, agentId: input.agentId, agentVersion: version.version },
    });
    return present(row, []);
  }

  async getEvaluation(input: Scope & { evaluationId: string }): Promise<EvaluationObject> {
    const row = await this.repo.getEvaluation(this.deps.db, input.evaluationId, scopeOf(input));
    if (!row) throw notFound('evaluation', input.evaluationId);
    return present(row, await this.repo.listCaseResults(this.deps.db, [row.id]));
  }

  async listEvaluations(input: Scope & { page: PageParams; agentId?: string }) {
    const page = await this.repo.listEvaluations(this.deps.db, scopeOf(input), input.page, { agentId: input.agentId });
    const results = await this.repo.listCaseResults(this.deps.db, page.data.map((e) => e.id));
    return { object: 'list' as const, data: page.data.map((e) => present(e, results.filter((r) => r.evaluation_id === e.id))), has_more: page.has_more };
  }

  /** Compares with the live version's last evaluation, marks the evaluation completed and emits evaluation.completed (once). */
  async completeEvaluation(input: { evaluationId: string }): Promise<void> {
    const evaluation = await this.repo.getEvaluation(this.deps.db, input.evaluationId);
    if (!evaluation) throw notFound('evaluation', input.evaluationId);
    if (evaluation.status === 'completed') return;
    const scope = { accountId: evaluation.account_id, livemode: evaluation.livemode };
    const results = await this.repo.listCaseResults(this.deps.db, [evaluation.id]);
    const comparison = await this.compare(scope, evaluation, results);
    await this.deps.events.transaction(async (tx) => {
      const done = await this.repo.completeEvaluation(tx, evaluation.id, JSON.stringify(comparison));
      if (!done) return;
      await this.deps.events.emit(
        { ...scope, type: 'evaluation.completed', data: present(done, results), eventId: derivedId(IdPrefix.event, done.id, 'evaluation.completed') },
        { tx },
      );
    });
  }

  /** The evaluated version of the account's agent (404 naming `agent_id` for another account's or a missing agent). */
  private async resolveVersion(scope: Scope, agentId: string, version: number | 'draft'): Promise<AgentVersion> {
    // The snapshot reads the agent in this scope: the draft's agent is read once.
    if (version === 'draft') return this.deps.agents.snapshotDraft({ ...scope, agentId, param: 'agent_id' });
    await this.deps.agents.getAgent({ ...scope, agentId, param: 'agent_id' });
    try {
      return await this.deps.agents.getVersion({ agentId, version });
    } catch (err) {
      if (err instanceof AppError && err.code === 'resource_missing') throw notFound('agent version', `${agentId}@${version}`, 'version');
      throw err;
    }
  }

  /** Regressions (passed there, fail here) and fixes against the last completed evaluation of the live version. */
  private async compare(scope: Scope, evaluation: EvaluationRow, results: CaseResultRow[]): Promise<StoredComparison> {
    const { liveVersion } = await this.deps.agents.getDraft({ ...scope, agentId: evaluation.agent_id });
    const baseline = liveVersion === null ? undefined : await this.repo.latestEvaluationOfVersion(this.deps.db, evaluation.agent_id, liveVersion, { completed: true, excludeId: evaluation.id });
    if (!baseline) return { baseline_evaluation_id: null, baseline_version: null, regressions: [], fixes: [], baseline_case_ids: [] };
    const before = new Map((await this.repo.listCaseResults(this.deps.db, [baseline.id])).map((r) => [r.case_id, r.passed]));
    const regressions = results.filter((r) => before.get(r.case_id) === true && !r.passed).map((r) => r.case_id);
    const fixes = results.filter((r) => before.get(r.case_id) === false && r.passed).map((r) => r.case_id);
    return { baseline_evaluation_id: baseline.id, baseline_version: baseline.agent_version, regressions, fixes, baseline_case_ids: [...before.keys()] };
  }
}

function present(row: EvaluationRow, results: CaseResultRow[]): EvaluationObject {
  const stored = row.comparison as StoredComparison | null;
  const passedCount = results.filter((r) => r.passed).length;
  const caseCount = (row.case_ids as string[]).length;
  const comparisonOf = (caseId: string) => {
    if (!stored || stored.baseline_evaluation_id === null) return null;
    if (stored.regressions.includes(caseId)) return 'regression' as const;
    if (stored.fixes.includes(caseId)) return 'fix' as const;
    return stored.baseline_case_ids.includes(caseId) ? ('unchanged' as const) : ('new' as const);
  };
  return {
    id: row.id,
    object: 'evaluation',
    livemode: row.livemode,
    agent_id: row.agent_id,
    version: row.target === 'draft' ? 'draft' : row.agent_version,
    // A draft's runs use a hidden snapshot (a negative number inside): the API says "draft", not -1.
    agent_version: row.target === 'draft' ? null : row.agent_version,
    status: row.status,
    passed: row.status === 'completed' ? passedCount === caseCount : null,
    case_count: caseCount,
    passed_count: passedCount,
    failed_count: results.length - passedCount,
    cases: results.map((r) => ({
      case_id: r.case_id,
      name: r.case_name,
      passed: r.passed,
      // Stored with the turn's index; shown counted from 1, as the console and the CLI print it.
      failures: r.failures.map((f) => ({ ...f, turn: f.turn + 1 })),
      run_ids: r.run_ids,
      conversation_id: r.conversation_id,
      confidence: r.confidence,
      latency_ms: r.latency_ms,
      comparison: comparisonOf(r.case_id),
    })),
    comparison: stored
      ? { baseline_evaluation_id: stored.baseline_evaluation_id, baseline_version: stored.baseline_version, regressions: stored.regressions, fixes: stored.fixes }
      : null,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
  };
}
