import type { Kysely, Transaction } from 'kysely';
import type { AccountsService } from '../accounts/accounts.service';
import type { AgentsService } from '../agents/agents.service';
import { redactDeep, redactText } from '../privacy/redaction';
import { matchRestrictedTopic } from '../agents/guardrails/restricted-topics';
import type { HandoffReason, Planner, PlannerDecision } from '../agents/planner/port';
import { callToolEndpoint } from '../agents/tools/tool-client';
import type { DB } from '../db/schema';
import { derivedId, IdPrefix } from '../domain/ids';
import { notFound } from '../domain/errors';
import type { KnowledgeRetrievalService } from '../knowledge/knowledge-retrieval.service';
import type { Logger } from '../observability/logger';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService, EventTransaction } from '../webhooks/events.service';
import { agentRunWorkflowId, previousRunFinishedSignal } from '../../workflows/shared/runs.contracts';
import type { RunConversationsPort } from './run-conversations.port';
import type { RunToolAnswersPort } from './run-tool-answers.port';
import {
  expireToolCalls,
  isTerminalRun,
  isTerminalToolCall,
  moveRun,
  moveToolCall,
  type MovedRun,
  type RunStatus,
  type FinishRunResult,
  type PlanStepResult,
  type StartRunResult,
  type TerminalRunStatus,
  type ToolCallStatus,
} from './run-lifecycle';
import type { RunNotifier } from './run-notifier';
import { decideRunOutcome, handoffNoticeMessageId, messageCitations } from './run-outcome';
import { linkCitedPassages, retrieveRunPassages } from './run-retrieval';
import type { CitationPagesService } from '../knowledge/citation-pages.service';
import { plannedToolCallRows, toPlannerResult } from './run-tool-calls';
import { RunRepo, type RunEventInput, type RunRow, type ToolCallRow } from './run.repo';
import { deltas, openReplyStream, settleStreamedReply } from './run-reply-stream';
import { toRunObject, type GuardrailNote, type StoredRetrievalItem } from './run.schemas';

/** Turns of the transcript the planner sees. */
const TRANSCRIPT_TURNS = 20;

/**
 * The agent run workflow's steps (called by activities), each idempotent: a retried step heals instead of
 * duplicating. Each step reads what it needs in one statement (RunRepo.loadStep) and writes its
 * transition, stream events and webhook events in one transaction; statuses move only through
 * run-lifecycle.ts. Customer text was redacted when it was stored; tool results and replies are redacted
 * here before they are stored. The conversation is reached through RunConversationsPort.
 */
export class RunStepsService {
  private readonly repo = new RunRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      agents: AgentsService;
      accounts: AccountsService;
      knowledgeRetrieval: KnowledgeRetrievalService;
      conversations: RunConversationsPort;
      events: EventsService;
      workflows: WorkflowGateway;
      notifier: RunNotifier;
      /** Links cited passages without a url of their own (documents, records) to their citation page. */
      citationPages: Pick<CitationPagesService, 'linkPassages'>;
      planner: Planner;
      allowPrivateNetwork: boolean;
      log: Logger;
      /** Declared tool results (an evaluation's test conversations); none: every call goes to its endpoint. */
      toolAnswers?: RunToolAnswersPort;
    },
  ) {}

  /** Moves notify other processes' waiters in their own statement (RunNotifier's channel, when it has one). */
  private get notifyTarget() {
    return this.deps.notifier.acrossProcesses;
  }

  private async load(runId: string, opts: { earlierOpenRun?: boolean; transcript?: number } = {}) {
    const ctx = await this.repo.loadStep(this.deps.db, runId, opts);
    if (!ctx) throw notFound('run', runId);
    const { config } = await this.deps.agents.getVersion({ agentId: ctx.run.agent_id, version: ctx.run.agent_version });
    return { ...ctx, config };
  }

  /**
   * queued → in_progress (run.started), unless an earlier run of the conversation has not finished (runs of
   * a conversation answer in order: it stays queued). A restricted topic decides the run here.
   */
  async startRun(input: { runId: string }): Promise<StartRunResult> {
    const { run, message, config, earlierOpenRunId } = await this.load(input.runId, { earlierOpenRun: true });
    if (isTerminalRun(run.status)) return { status: run.status };
    if (run.status === 'queued') {
      if (earlierOpenRunId) return { status: 'queued' };
      const started = await moveRun(this.deps.db, run.id, 'start', { set: { started_at: new Date() }, events: [{ type: 'run.started', data: { run_id: run.id } }], notify: this.notifyTarget });
      this.deps.notifier.notifyLocally(run.id, started?.status);
    }
    const topic = matchRestrictedTopic({ text: message.content, topics: config.guardrails.restricted_topics });
    if (!topic) return { status: 'in_progress' };
    const refuse = config.guardrails.restricted_topic_action === 'refuse';
    const decision: PlannerDecision = refuse
      ? { type: 'reply', content: `I'm sorry, I can't help with ${topic.topic}.`, citations: [], groundedInTools: false, clarifying: true, confidence: 1, usage: { input_tokens: 0, output_tokens: 0 } }
      : { type: 'handoff', reason: 'restricted_topic', summary: `The customer asked about a restricted topic (${topic.topic}).`, suggestedReply: '', usage: { input_tokens: 0, output_tokens: 0 } };
    await this.repo.updateRun(this.deps.db, run.id, {
      decision: JSON.stringify(decision),
      guardrail_notes: JSON.stringify([{ guardrail: 'restricted_topics', action: refuse ? 'refused' : 'handoff', detail: `Matched the restricted topic "${topic.topic}" ("${topic.matched}").` }]),
    });
    return { status: 'in_progress', decided: true };
  }

  /** Retrieves from the agent's knowledge bases (their filters, and the customer's locale where asked). */
  async retrieveKnowledge(input: { runId: string }): Promise<{ passages: number; topScore: number }> {
    const { run, message, conversation, transcript, config } = await this.load(input.runId, { transcript: TRANSCRIPT_TURNS });
    if (config.knowledge_bases.length === 0) return { passages: 0, topScore: 0 };
    const { items, mode } = await retrieveRunPassages(this.deps.knowledgeRetrieval, { run, message, conversation, transcript, config });
    if (mode === 'lexical_fallback') this.deps.log?.warn({ runId: run.id }, 'The question could not be embedded; the run retrieved lexically');
    // Passages and api answers may quote a card or an IBAN: redacted before the run record (and run.completed) holds them.
    await this.repo.updateRun(this.deps.db, run.id, { retrieval: JSON.stringify(redactDeep(items)), retrieval_mode: mode });
    return { passages: items.length, topScore: items[0]?.score ?? 0 };
  }

  /** One planner turn: tool calls are recorded (validated, gated), a reply or handoff is kept for finishRun. */
  async planNextStep(input: { runId: string; step: number }): Promise<PlanStepResult> {
    const { db } = this.deps;
    const { run, message, conversation, calls, transcript, config } = await this.load(input.runId, { transcript: TRANSCRIPT_TURNS });
    const retrieval = run.retrieval as StoredRetrievalItem[];
    // Chat replies stream when the planner can (the local one answers at once: finishRun sends its sentences).
    const stream = run.channel === 'chat' && this.deps.planner.provider !== 'local' ? await openReplyStream(this.deps.conversations, this.deps.db, run) : undefined;
    const decision = await this.deps.planner.plan({
      instructions: config.instructions,
      channel: run.channel,
      locale: (conversation.customer as { locale?: string }).locale ?? config.locales[0] ?? null,
      context: conversation.context ?? {},
      transcript: transcript ?? [],
      message: message.content,
      passages: retrieval.map((p, i) => ({
        ref: i + 1, sourceId: p.source_id, title: p.title, text: p.content, url: p.url, score: p.score,
        ...(p.sentence_cosines ? { sentenceCosines: p.sentence_cosines } : {}),
      })),
      tools: config.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      toolResults: calls.filter((c) => isTerminalToolCall(c.status)).map(toPlannerResult),
      retrievalRequired: config.retrieval_required,
      confidenceFloor: config.guardrails.confidence_floor,
    }, { onReplyText: stream?.push });
    await stream?.finish(decision);
    const usage = JSON.stringify({ input_tokens: run.usage.input_tokens + decision.usage.input_tokens, output_tokens: run.usage.output_tokens + decision.usage.output_tokens });
    if (decision.type !== 'tool_calls') {
      await this.repo.updateRun(db, run.id, { decision: JSON.stringify(redactDeep(decision)), usage });
      return { type: decision.type };
    }
    const rows = plannedToolCallRows({ runId: run.id, step: input.step, recorded: calls.length, calls: decision.calls, config });
    await db.transaction().execute(async (tx) => {
      await this.repo.insertToolCalls(tx, rows);
      await this.repo.updateRun(tx, run.id, { usage });
    });
    // A retried turn finds its calls recorded already: they answer with the status they had.
    return { type: 'tool_calls', calls: rows.map((r) => ({ id: r.id, status: calls.find((c) => c.id === r.id)?.status ?? r.status })) };
  }

  /**
   * One tool call per SPEC's tool endpoint contract (signed POST, timeout, one retry on network errors
   * when idempotent). A call whose earlier attempt died mid-flight is resent only when the tool is
   * idempotent; otherwise it is recorded as an error (it may have reached the tool).
   */
  async callTool(input: { runId: string; toolCallId: string }): Promise<{ status: ToolCallStatus }> {
    const { db } = this.deps;
    const { run, calls, config, conversation } = await this.load(input.runId);
    const call = calls.find((c) => c.id === input.toolCallId);
    if (!call) throw notFound('tool call', input.toolCallId);
    if (call.status !== 'ready' && call.status !== 'approved' && call.status !== 'calling') return { status: call.status };
    const tool = config.tools.find((t) => t.name === call.tool)!;
    if (call.status === 'calling' && !tool.idempotent) {
      const error = { code: 'uncertain', message: 'The worker stopped during the call; a non-idempotent tool is not called twice' };
      await moveToolCall(db, call.id, 'abandon', 'error', { error: JSON.stringify(error) });
      return { status: 'error' };
    }
    await db.transaction().execute(async (tx) => {
      await this.repo.lockRun(tx, run.id);
      await moveToolCall(tx, call.id, 'call', 'calling', { attempts: call.attempts + 1 });
      await this.repo.appendEvents(tx, run.id, [{ type: 'tool.called', data: { run_id: run.id, tool_call_id: call.id, tool: call.tool, arguments: call.arguments } }]);
    });
    await this.deps.notifier.publish(run.id);
    const declared = await this.deps.toolAnswers?.answerToolCall({ conversation, tool: call.tool, arguments: call.arguments });
    const outcome = declared ?? await callToolEndpoint({
      endpoint: tool.endpoint,
      tool: tool.name,
      arguments: call.arguments,
      conversationId: run.conversation_id,
      runId: run.id,
      signingSecret: await this.deps.accounts.getSigningSecret({ accountId: run.account_id, livemode: run.livemode }),
      timeoutMs: tool.timeout_ms,
      idempotent: tool.idempotent,
      allowPrivate: this.deps.allowPrivateNetwork,
      // Checked again at call time: a live run never calls a tool over plain http (whatever was saved before).
      requireHttps: run.livemode,
      idempotencyKey: call.id,
    });
    const status = outcome.status === 'pending' ? 'pending_result' : outcome.status;
    await moveToolCall(db, call.id, 'answer', status, {
      latency_ms: Math.round(outcome.latencyMs),
      result: outcome.status === 'ok' ? JSON.stringify(redactDeep(outcome.result ?? null)) : null,
      error: outcome.status === 'error' ? JSON.stringify(redactDeep(outcome.error)) : outcome.status === 'timed_out' ? JSON.stringify({ code: 'timed_out', message: `No answer within ${tool.timeout_ms} ms` }) : null,
    });
    return { status };
  }

  /** in_progress → requires_action with the calls to approve or to await (run.requires_action). */
  async requireAction(input: { runId: string; kind: 'approve_tool_call' | 'submit_tool_result'; toolCallIds: string[]; expiresAtMs: number }): Promise<void> {
    const { conversation, calls } = await this.load(input.runId);
    const expiresAt = new Date(input.expiresAtMs);
    const waitedOn = calls.filter((c) => input.toolCallIds.includes(c.id));
    const action = { type: input.kind, tool_calls: waitedOn.map((c) => ({ id: c.id, tool: c.tool, arguments: c.arguments })), expires_at: expiresAt.toISOString() };
    // The transition and its events (stream and webhook) commit together (events outbox).
    const moved = await this.deps.events.transaction(async (tx) => {
      await this.repo.setToolCallsExpiry(tx, input.toolCallIds, expiresAt);
      const row = await moveRun(tx, input.runId, 'requireAction', {
        set: { required_action: JSON.stringify(action) },
        events: [{ type: 'run.requires_action', data: { run_id: input.runId, required_action: action } }],
        notify: this.notifyTarget,
      });
      if (row) await this.emitRunEvent(tx, row, 'run.requires_action', calls, conversation.metadata);
      return row;
    });
    // The status the move wrote (none when a retried step found the run already moved: waiters then read).
    this.deps.notifier.notifyLocally(input.runId, moved?.status);
  }

  /** After the wait: expires what is still pending when `expire`, resumes the run, returns the calls' statuses. */
  async collectToolCalls(input: { runId: string; toolCallIds: string[]; expire: boolean }): Promise<{ id: string; status: ToolCallStatus }[]> {
    const { db } = this.deps;
    if (input.expire) await expireToolCalls(db, input.toolCallIds);
    const calls = (await this.repo.listToolCalls(db, input.runId)).filter((c) => input.toolCallIds.includes(c.id));
    const resumed = await moveRun(db, input.runId, 'resume', { set: { required_action: null }, notify: this.notifyTarget });
    this.deps.notifier.notifyLocally(input.runId, resumed?.status);
    return calls.map((c) => ({ id: c.id, status: c.status }));
  }

  /**
   * The run's last word: the final guardrails and outcome (run-outcome.ts), then in one transaction the
   * completed run, its reply (shaped for the channel) or handoff, the stream events and the webhook
   * events; then the conversation's next queued run is signalled. A finished run is left as it is.
   */
  async finishRun(input: { runId: string; handoffReason?: HandoffReason }): Promise<FinishRunResult> {
    const { run, message, conversation, calls, config } = await this.load(input.runId);
    if (isTerminalRun(run.status)) return { status: run.status, deliver: this.hasReplyToSend(run), notice: this.hasNoticeToSend(run) };
    const found = run.retrieval as StoredRetrievalItem[];
    const outcome = decideRunOutcome({
      config,
      decision: run.decision as PlannerDecision | null,
      retrieval: found,
      customerMessage: message.content,
      forcedHandoff: input.handoffReason,
      notes: run.guardrail_notes as GuardrailNote[],
    });
    const retrieval = outcome.reply === null ? found : await linkCitedPassages(this.deps.citationPages, run, found, outcome.citations);
    const cited = retrieval.map((item, i) => ({ ...item, cited: outcome.citations.includes(i + 1) }));
    const reply =
      outcome.reply === null
        ? null
        : await this.deps.conversations.shapeRunReply({
            channel: run.channel,
            accountId: run.account_id,
            conversation,
            runId: run.id,
            text: redactText(outcome.reply).text,
            sources: outcome.citations
              .map((ref) => retrieval[ref - 1]!)
              .map(({ title, url, snippet, source_id, source }) => ({ title, url, snippet, sourceId: source_id, knowledgeBaseId: source })),
            agent: config,
          });
    const replyId = derivedId(IdPrefix.message, run.id, 'reply');
    const stream: RunEventInput[] = reply === null ? [] : deltas(reply.content).map((text) => ({ type: 'reply.delta', data: { run_id: run.id, text } }));
    stream.push({ type: 'run.completed', data: { run_id: run.id, status: 'completed' } });

    // The run's state, its reply, the handoff, the stream events and the webhook events commit together
    // (the events outbox): a crash after the commit loses no event, and a retry finds the run finished.
    const moved = await this.deps.events.transaction(async (tx) => {
      const row = await moveRun(tx, run.id, 'complete', {
        set: {
          confidence: Math.round(outcome.confidence * 10_000) / 10_000,
          reply: reply === null ? null : JSON.stringify({ role: 'agent', content: reply.content }),
          handoff: outcome.handoff ? JSON.stringify(outcome.handoff) : null,
          guardrail_notes: JSON.stringify(outcome.notes),
          retrieval: JSON.stringify(cited),
          required_action: null,
          reply_message_id: reply === null ? null : replyId,
          completed_at: new Date(),
        },
        events: stream,
        notify: this.notifyTarget,
      });
      if (!row) return undefined;
      await settleStreamedReply(this.deps.conversations, tx, run, reply?.content ?? null, outcome.handoff ? { reason: 'handoff', handoff_reason: outcome.handoff.reason } : { reason: 'no_reply' });
      if (reply !== null) {
        await this.deps.conversations.appendRunReply(tx, {
          conversation, messageId: replyId, runId: run.id, channel: run.channel, content: reply.content, attachments: reply.attachments,
          citations: messageCitations(outcome.citations.map((ref) => retrieval[ref - 1]).filter((item) => item !== undefined)),
        });
      }
      if (outcome.handoff) {
        await this.deps.conversations.handOff(tx, {
          conversation, runId: run.id, handoff: outcome.handoff, channel: run.channel, noticeMessageId: handoffNoticeMessageId(run.id), agent: config,
        });
      }
      await this.emitRunEvent(tx, row, 'run.completed', calls, conversation.metadata);
      return row;
    });
    if (!moved) {
      const now = (await this.repo.getRun(this.deps.db, run.id))!;
      return { status: now.status as 'completed', deliver: this.hasReplyToSend(now), notice: this.hasNoticeToSend(now) };
    }
    await this.afterFinish(moved);
    return { status: 'completed', deliver: this.hasReplyToSend(moved), notice: this.hasNoticeToSend(moved) };
  }

  /**
   * Sends a finished run's handoff notice on its channel (sms, email; idempotent like a reply: the
   * channel keys its send by the notice's message id). Nothing when the run did not hand off, or the
   * conversation was closed before the notice was written.
   */
  async deliverHandoffNotice(input: { runId: string }): Promise<void> {
    const run = await this.repo.getRun(this.deps.db, input.runId);
    if (!run) throw notFound('run', input.runId);
    if (!this.hasNoticeToSend(run)) return;
    await this.deps.conversations.deliverRunReply({ conversationId: run.conversation_id, messageId: handoffNoticeMessageId(run.id), runId: run.id, channel: run.channel });
  }

  /** Sends a finished run's reply on its channel (sms, email; idempotent: each channel keys its send by the message id). */
  async deliverReply(input: { runId: string }): Promise<void> {
    const run = await this.repo.getRun(this.deps.db, input.runId);
    if (!run) throw notFound('run', input.runId);
    if (!this.hasReplyToSend(run) || !run.reply_message_id) return;
    await this.deps.conversations.deliverRunReply({ conversationId: run.conversation_id, messageId: run.reply_message_id, runId: run.id, channel: run.channel });
  }

  /** A required action was not fulfilled in time: expired, no reply. */
  async expireRun(input: { runId: string }): Promise<{ status: 'expired' }> {
    await this.endWithoutReply(input.runId, 'expire');
    return { status: 'expired' };
  }

  /** An unrecoverable error: failed with its (redacted) error, no reply. */
  async failRun(input: { runId: string; code: string; message: string }): Promise<{ status: 'failed' }> {
    await this.endWithoutReply(input.runId, 'fail', { code: input.code, message: redactText(input.message).text });
    return { status: 'failed' };
  }

  private async endWithoutReply(runId: string, move: 'expire' | 'fail', error?: { code: string; message: string }) {
    const view = await this.repo.getView(this.deps.db, runId);
    if (!view || isTerminalRun(view.run.status)) return;
    const status: RunStatus = move === 'expire' ? 'expired' : 'failed';
    const moved = await this.deps.events.transaction(async (tx) => {
      const row = await moveRun(tx, runId, move, {
        set: { error: error ? JSON.stringify(error) : null, required_action: null, completed_at: new Date() },
        events: [{ type: 'run.completed', data: { run_id: runId, status } }],
        notify: this.notifyTarget,
      });
      if (row) {
        await settleStreamedReply(this.deps.conversations, tx, view.run, null, { reason: status });
        await this.emitRunEvent(tx, row, 'run.completed', view.calls, view.metadata);
      }
      return row;
    });
    if (moved) await this.afterFinish(moved);
  }

  /** A finished run wakes its waiters in this process and lets the conversation's next queued run start. */
  private async afterFinish(run: MovedRun) {
    this.deps.notifier.notifyLocally(run.id, run.status);
    if (run.next_queued_run_id) await this.deps.workflows.signalIfRunning(agentRunWorkflowId(run.next_queued_run_id), previousRunFinishedSignal);
  }

  /** A run that handed off on a channel that sends after the run (voice speaks its own transfer notice). */
  private hasNoticeToSend(run: RunRow): boolean {
    return run.handoff !== null && run.channel !== 'voice' && this.deps.conversations.sendsAfterRun(run.channel);
  }

  /** A reply was written and its channel sends it after the run (sms, email; not chat or voice). */
  private hasReplyToSend(run: RunRow): boolean {
    return run.reply_message_id !== null && this.deps.conversations.sendsAfterRun(run.channel);
  }

  /** run.completed / run.requires_action webhook events carry the run object; emitted in the transition's transaction. */
  private async emitRunEvent(tx: EventTransaction, run: RunRow, type: 'run.completed' | 'run.requires_action', calls: ToolCallRow[], metadata: Record<string, string>) {
    await this.deps.events.emit(
      {
        accountId: run.account_id,
        livemode: run.livemode,
        type,
        data: toRunObject(run, calls, metadata),
        eventId: derivedId(IdPrefix.event, run.id, type, type === 'run.requires_action' ? String(run.updated_at.getTime()) : run.status),
      },
      { tx },
    );
  }
}

export type { FinishRunResult, PlanStepResult, StartRunResult } from './run-lifecycle';
