import type { Kysely } from 'kysely';
import type { ConversationsService } from '../conversations/conversations.service';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { derivedId, IdPrefix } from '../domain/ids';
import type { Scope } from '../domain/principal';
import type { RunObject } from '../runs/run.schemas';
import type { RunsService, RunWaitEnd } from '../runs/runs.service';
import { declaredResultFor, EVALUATION_METADATA } from './declared-tool-answers';
import { EvaluationRepo, type CaseResultRow, type EvaluationRow, type TestCaseRow } from './evaluation.repo';
import type { CaseFailure, TestCaseDefinition } from './evaluation.schemas';
import { checkTurn, type ObservedAction } from './expectations';
import { definitionOf } from './test-cases.service';

/** How long one wait for a run lasts before the runner heartbeats and waits again. */
const WAIT_SLICE_MS = 2_000;
const ENDED = new Set<RunObject['status']>(['completed', 'failed', 'expired']);

/**
 * The wait after the runner answered a run's required action (the calls in `answered`): it ends when the
 * run moves on (in_progress, or ended) or asks for something not answered yet. A run leaves
 * requires_action only for another status (run-lifecycle.ts), so a requires_action notification is let
 * pass: the notification of the move before it woke the wait.
 */
const movedOnFrom = (answered: ReadonlySet<string>): RunWaitEnd => ({
  wakesOn: (status) => status !== 'requires_action',
  ends: (run) => run.status !== 'requires_action' || (run.required_action?.tool_calls.some((c) => !answered.has(c.id)) ?? false),
});

/** The derived ids of a case's conversation and turns: a repeated case finds what it posted before. */
export const evaluationConversationId = (evaluationId: string, caseId: string) => derivedId(IdPrefix.conversation, evaluationId, caseId);
const turnMessageId = (evaluationId: string, caseId: string, turn: number) => derivedId(IdPrefix.message, evaluationId, caseId, String(turn));

/**
 * Runs one test case of an evaluation: its hidden test conversation (pinned to the evaluated version,
 * on the case's channel, never delivered), each customer turn posted as an ordinary message whose run is
 * awaited, approvals answered as the turn says and 202 results submitted from the case's declarations;
 * then the expectations are checked and the result recorded once. Every id is derived from the
 * evaluation and the case, so a case repeated after a worker crash posts and runs nothing twice.
 */
export class EvaluationCaseRunner {
  private readonly repo = new EvaluationRepo();

  constructor(private readonly deps: { db: Kysely<DB>; conversations: ConversationsService; runs: RunsService }) {}

  /** One case of a running evaluation (the evaluation workflow's activity); its result is recorded once. */
  async runEvaluationCase(input: { evaluationId: string; caseId: string; position: number; heartbeat?: () => void }): Promise<{ passed: boolean }> {
    const evaluation = await this.repo.getEvaluation(this.deps.db, input.evaluationId);
    if (!evaluation) throw notFound('evaluation', input.evaluationId);
    const testCase = await this.repo.getTestCaseById(this.deps.db, input.caseId);
    if (!testCase || testCase.agent_id !== evaluation.agent_id) {
      // Deleted after the evaluation started: recorded as failed, so the evaluation still completes.
      await this.repo.insertCaseResult(this.deps.db, {
        evaluation_id: evaluation.id, case_id: input.caseId, case_name: input.caseId, position: input.position, passed: false,
        failures: JSON.stringify([{ turn: 0, expectation: 'case', reason: 'The test case was deleted during the evaluation' }]),
        run_ids: JSON.stringify([]), conversation_id: evaluationConversationId(evaluation.id, input.caseId), confidence: null, latency_ms: 0,
      });
      const recorded = await this.repo.getCaseResult(this.deps.db, evaluation.id, input.caseId);
      return { passed: recorded?.passed ?? false };
    }
    const result = await this.runCase({ evaluation, testCase, position: input.position, heartbeat: input.heartbeat });
    return { passed: result.passed };
  }

  private async runCase(input: { evaluation: EvaluationRow; testCase: TestCaseRow; position: number; heartbeat?: () => void }): Promise<CaseResultRow> {
    const { evaluation, testCase } = input;
    const recorded = await this.repo.getCaseResult(this.deps.db, evaluation.id, testCase.id);
    if (recorded) return recorded;
    const scope: Scope = { accountId: evaluation.account_id, livemode: evaluation.livemode };
    const definition = definitionOf(testCase);
    const conversationId = await this.openConversation(scope, evaluation, testCase.id, definition);
    const failures: CaseFailure[] = [];
    const runs: RunObject[] = [];
    const stored = () => this.repo.storedTextOfConversation(this.deps.db, conversationId);

    for (const [turn, script] of definition.turns.entries()) {
      const channel = script.channel ?? definition.channel;
      const posted = await this.deps.conversations.postMessage({
        ...scope,
        conversationId,
        role: 'customer',
        content: script.customer,
        channel,
        messageId: turnMessageId(evaluation.id, testCase.id, turn),
        byEvaluation: true,
        waitMs: 0,
      });
      const runId = posted.run?.id ?? posted.run_id;
      const run = runId ? await this.settle(scope, runId, definition, script.approve, failures, turn, input.heartbeat) : null;
      if (run) runs.push(run);
      const actions = run ? ((await this.repo.listRequiredActions(this.deps.db, run.id)) as unknown as ObservedAction[]) : [];
      failures.push(...(await checkTurn(script.expect, { turn, channel, run, actions, stored })));
    }

    const first = runs[0];
    const last = runs.at(-1);
    const latency = first && last?.completed_at ? Date.parse(last.completed_at) - Date.parse(first.created_at) : 0;
    await this.repo.insertCaseResult(this.deps.db, {
      evaluation_id: evaluation.id,
      case_id: testCase.id,
      case_name: testCase.name,
      position: input.position,
      passed: failures.length === 0,
      failures: JSON.stringify(failures),
      run_ids: JSON.stringify(runs.map((r) => r.id)),
      conversation_id: conversationId,
      confidence: last?.confidence ?? null,
      latency_ms: Math.max(0, Math.round(latency)),
    });
    return (await this.repo.getCaseResult(this.deps.db, evaluation.id, testCase.id))!;
  }

  /** The case's hidden test conversation, opened once (its id is derived from the evaluation and the case). */
  private async openConversation(scope: Scope, evaluation: EvaluationRow, caseId: string, d: TestCaseDefinition): Promise<string> {
    const conversationId = evaluationConversationId(evaluation.id, caseId);
    if (await this.deps.conversations.conversationRepo.getConversation(this.deps.db, conversationId)) return conversationId;
    await this.deps.conversations.createConversation({
      ...scope,
      agent_id: evaluation.agent_id,
      channel: d.channel,
      customer: { ...d.customer, ...(d.locale ? { locale: d.locale } : {}) },
      context: d.context,
      metadata: { [EVALUATION_METADATA.evaluation]: evaluation.id, [EVALUATION_METADATA.testCase]: caseId },
      test: true,
      evaluation: { conversationId, agentVersion: evaluation.agent_version },
    });
    return conversationId;
  }

  /**
   * Waits for the turn's run to end, answering what it asks for on the way: approvals as the turn says,
   * a 202's result from the case's declaration. A 202 the case declares no result for cannot be answered:
   * a failure, and the run is left waiting (it expires at the agent's timeout).
   */
  private async settle(scope: Scope, runId: string, d: TestCaseDefinition, approve: boolean, failures: CaseFailure[], turn: number, heartbeat?: () => void): Promise<RunObject> {
    const answered = new Set<string>();
    // Answered: the run goes on once its workflow has read the answers; until then it still requires action.
    let awaitingMove = false;
    for (;;) {
      heartbeat?.();
      const run = await this.deps.runs.waitForRun({ runId, waitMs: WAIT_SLICE_MS, ...(awaitingMove ? { until: movedOnFrom(answered) } : {}) });
      awaitingMove = false;
      if (ENDED.has(run.status)) return run;
      if (run.status !== 'requires_action' || !run.required_action) continue;
      const action = run.required_action;
      awaitingMove = true;
      if (action.tool_calls.every((c) => answered.has(c.id))) continue;
      for (const call of action.tool_calls) {
        answered.add(call.id);
        if (action.type === 'approve_tool_call') {
          await ignoreSettled(this.deps.runs.decideApproval({ ...scope, runId, toolCallId: call.id, decision: approve ? 'approve' : 'reject', note: 'evaluation', approver: { type: 'evaluation', id: 'evaluation', name: 'Evaluation' }, approverRole: 'owner' }));
          continue;
        }
        const declared = declaredResultFor(d.tool_results, call.tool, call.arguments);
        if (!declared?.pending) {
          failures.push({ turn, expectation: 'tool_results', reason: `${call.tool} answered 202 and the case declares no result to submit (pending: true with result)` });
          return run;
        }
        const result = declared.result !== null && typeof declared.result === 'object' && !Array.isArray(declared.result) ? (declared.result as Record<string, unknown>) : { value: declared.result };
        await ignoreSettled(this.deps.runs.submitToolResult({ ...scope, runId, toolCallId: call.id, result }));
      }
    }
  }
}

/** An approval or a result already given (a repeated case) is not an error. */
async function ignoreSettled(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError && err.code === 'tool_call_not_pending') return;
    throw err;
  }
}
