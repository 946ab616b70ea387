import type { Kysely } from 'kysely';
import type { AgentConfig } from '../agents/agent.schemas';
import type { AgentPublishGate, AgentsService } from '../agents/agents.service';
import type { DB } from '../db/schema';
import { AppError } from '../domain/errors';
import type { Scope } from '../domain/principal';
import { EvaluationRepo } from './evaluation.repo';
import type { StoredComparison } from './evaluations.service';

/** AgentsService's publish gate for agents with `require_passing_evaluation` (see assertPublishable). */
export class EvaluationPublishGate implements AgentPublishGate {
  private readonly repo = new EvaluationRepo();

  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService }) {}

  /**
   * The publish gate of an agent with `require_passing_evaluation`: its latest draft evaluation must be
   * of the draft as it is now, `input.draft` (422 evaluation_required otherwise, also while it runs) and
   * have no regression against the live version (422 evaluation_regression, naming the cases). It stores
   * nothing: the draft's snapshot is looked up, not taken (a draft no snapshot holds was never evaluated).
   */
  async assertPublishable(input: Scope & { agentId: string; draft: AgentConfig }): Promise<void> {
    const [snapshot, latest] = await Promise.all([
      this.deps.agents.reusableDraftSnapshot({ agentId: input.agentId, draft: input.draft }),
      this.repo.latestDraftEvaluation(this.deps.db, input.agentId),
    ]);
    if (!latest || latest.agent_version !== snapshot) {
      throw new AppError('evaluation_required', `Agent ${input.agentId} requires a passing evaluation: the draft ${latest ? 'changed since its latest evaluation' : 'was never evaluated'}; evaluate the draft first (POST /v1/evaluations with version "draft")`);
    }
    if (latest.status !== 'completed') throw new AppError('evaluation_required', `Evaluation ${latest.id} of the draft is still running; publish once it completes`);
    const comparison = latest.comparison as StoredComparison | null;
    if (comparison && comparison.regressions.length > 0) {
      const results = await this.repo.listCaseResults(this.deps.db, [latest.id]);
      const names = comparison.regressions.map((id) => results.find((r) => r.case_id === id)?.case_name ?? id);
      throw new AppError(
        'evaluation_regression',
        `Evaluation ${latest.id} of the draft has ${names.length} regression${names.length === 1 ? '' : 's'} against version ${comparison.baseline_version}: ${names.map((n) => `'${n}'`).join(', ')}`,
      );
    }
  }
}
