import type { Kysely } from 'kysely';
import type { AccountsService } from '../accounts/accounts.service';
import type { AgentConfig } from '../agents/agent.schemas';
import type { AgentsService } from '../agents/agents.service';
import { redactDeep, redactText } from '../agents/guardrails/redaction';
import { matchRestrictedTopic } from '../agents/guardrails/restricted-topics';
import { validateToolArguments } from '../agents/guardrails/tool-arguments';
import type { Planner, PlannerDecision, PlannerToolResult } from '../agents/planner/planner.port';
import { callToolEndpoint } from '../agents/tools/tool-client';
import type { ConversationRepo } from '../conversations/conversation.repo';
import type { DB } from '../db/schema';
import type { RunStatus, ToolCallStatus } from '../db/tables/agents';
import { derivedId, IdPrefix } from '../domain/ids';
import { notFound } from '../domain/errors';
import type { KnowledgeRetrievalService, MetadataFilter } from '../knowledge/knowledge-retrieval.service';
import type { Logger } from '../observability/logger';
import type { EventsService } from '../webhooks/events.service';
import type { RunFinisher } from './run-finisher';
import type { RunNotifier } from './run-notifier';
import { RunRepo, type RunRow } from './run.repo';
import type { StoredRetrievalItem } from './run.schemas';

/** Passages a run retrieves for its planner. */
const RETRIEVE_TOP_K = 5;
/** Turns of the transcript the planner sees. */
const TRANSCRIPT_TURNS = 20;
/**
 * Channels whose retrieval runs against the whole thread (SPEC: "in email, retrieval is run against the
 * whole thread"): the customer message is searched, and so are the thread's customer turns together
 * (at most THREAD_QUERY_CHARS, latest first); a passage found by both keeps its better score.
 */
const THREAD_RETRIEVAL_CHANNELS: ReadonlySet<string> = new Set(['email']);
const THREAD_QUERY_CHARS = 2000;

export type PlanStepResult = { type: 'reply' | 'handoff' } | { type: 'tool_calls'; calls: { id: string; status: ToolCallStatus }[] };

/**
 * The agent run workflow's steps (called by activities), each idempotent: a retried step heals instead of
 * duplicating. Customer text was redacted when it was stored; tool results and replies are redacted here
 * before they are stored. Finishing (guardrails, reply, handoff, events) is RunFinisher's.
 */
export class RunStepsService {
  private readonly repo = new RunRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      agents: AgentsService;
      accounts: AccountsService;
      knowledgeRetrieval: KnowledgeRetrievalService;
      conversations: ConversationRepo;
      finisher: RunFinisher;
      events: EventsService;
      notifier: RunNotifier;
      planner: Planner;
      allowPrivateNetwork: boolean;
      log: Logger;
    },
  ) {}

  private async load(runId: string) {
    const run = await this.repo.getRun(this.deps.db, runId);
    if (!run) throw notFound('run', runId);
    const { config } = await this.deps.agents.getVersion({ agentId: run.agent_id, version: run.agent_version });
    return { run, config };
  }

  private async customerMessage(run: RunRow) {
    const message = await this.deps.conversations.getMessage(this.deps.db, run.message_id);
    if (!message) throw notFound('conversation message', run.message_id);
    return message;
  }

  /**
   * queued → in_progress (run.started), unless an earlier run of the conversation has not finished
   * (`blocked`: runs of a conversation answer in order). A restricted topic stops the run here (`guarded`).
   */
  async startRun(input: { runId: string }): Promise<{ state: 'ready' | 'blocked' | 'guarded' } | { state: 'finished'; status: 'completed' | 'failed' | 'expired' }> {
    const { db } = this.deps;
    const { run, config } = await this.load(input.runId);
    if (run.status === 'completed' || run.status === 'failed' || run.status === 'expired') return { state: 'finished', status: run.status };
    if (run.status === 'queued') {
      if (await this.repo.findEarlierOpenRun(db, run)) return { state: 'blocked' };
      await db.transaction().execute(async (tx) => {
        const moved = await this.repo.transitionRun(tx, run.id, 'in_progress', { started_at: new Date() });
        if (moved) await this.repo.appendEvents(tx, run.id, [{ type: 'run.started', data: { run_id: run.id } }]);
      });
      await this.deps.notifier.publish(run.id);
    }
    const message = await this.customerMessage(run);
    const topic = matchRestrictedTopic({ text: message.content, topics: config.guardrails.restricted_topics });
    if (!topic) return { state: 'ready' };
    const refuse = config.guardrails.restricted_topic_action === 'refuse';
    const decision: PlannerDecision = refuse
      ? { type: 'reply', content: `I'm sorry, I can't help with ${topic.topic}.`, citations: [], groundedInTools: false, clarifying: true, confidence: 1, usage: { input_tokens: 0, output_tokens: 0 } }
      : { type: 'handoff', reason: 'restricted_topic', summary: `The customer asked about a restricted topic (${topic.topic}).`, suggestedReply: '', usage: { input_tokens: 0, output_tokens: 0 } };
    await this.repo.updateRun(db, run.id, {
      decision: JSON.stringify(decision),
      guardrail_notes: JSON.stringify([{ guardrail: 'restricted_topics', action: refuse ? 'refused' : 'handoff', detail: `Matched the restricted topic "${topic.topic}" ("${topic.matched}").` }]),
    });
    return { state: 'guarded' };
  }

  /** Retrieves from the agent's knowledge bases (their filters, and the customer's locale where asked). */
  async retrieveKnowledge(input: { runId: string }): Promise<{ passages: number; topScore: number }> {
    const { db } = this.deps;
    const { run, config } = await this.load(input.runId);
    if (config.knowledge_bases.length === 0) return { passages: 0, topScore: 0 };
    const [message, conversation] = await Promise.all([this.customerMessage(run), this.deps.conversations.getConversation(db, run.conversation_id)]);
    const locale = (conversation?.customer as { locale?: string } | undefined)?.locale;
    // Bases with the same filter are searched together; results merge by calibrated score.
    const groups = new Map<string, { ids: string[]; filter?: MetadataFilter }>();
    for (const kb of config.knowledge_bases) {
      const filter: MetadataFilter | undefined = config.locale_filter_key && locale ? { ...kb.filter, [config.locale_filter_key]: locale } : kb.filter;
      const key = JSON.stringify(filter ?? null);
      const group = groups.get(key) ?? { ids: [], filter };
      group.ids.push(kb.id);
      groups.set(key, group);
    }
    const queries = [message.content];
    if (THREAD_RETRIEVAL_CHANNELS.has(run.channel)) {
      const thread = await this.threadQuery(run, message);
      if (thread) queries.push(thread);
    }
    const found = await Promise.all(
      [...groups.values()].flatMap((g) =>
        queries.map((query) =>
          this.deps.knowledgeRetrieval
            .retrieve({ accountId: run.account_id, knowledgeBaseIds: g.ids, query, topK: RETRIEVE_TOP_K, filter: g.filter })
            .catch((err: { code?: string }) => {
              if (err.code === 'source_indexing') return { results: [], apiFailures: [] };
              throw err;
            }),
        ),
      ),
    );
    // The same passage found by several queries counts once, with its best score.
    const best = new Map<string, (typeof found)[number]['results'][number]>();
    for (const p of found.flatMap((r) => r.results)) {
      const key = `${p.sourceId}\u0000${p.content}`;
      if ((best.get(key)?.score ?? -1) < p.score) best.set(key, p);
    }
    const items: StoredRetrievalItem[] = [...best.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, RETRIEVE_TOP_K)
      .map((p) => ({ source: p.knowledgeBaseId, source_id: p.sourceId, title: p.title, snippet: p.snippet, url: p.url, score: round(p.score), cited: false, content: p.content }));
    // Passages and api answers may quote a card or an IBAN: redacted before the run record (and run.completed) holds them.
    await this.repo.updateRun(db, run.id, { retrieval: JSON.stringify(redactDeep(items)) });
    return { passages: items.length, topScore: items[0]?.score ?? 0 };
  }

  /** The thread's customer turns before the message and the message, latest first, capped; undefined when it has no earlier turn. */
  private async threadQuery(run: RunRow, message: { seq: number; content: string }): Promise<string | undefined> {
    const before = await this.deps.conversations.listTranscriptBefore(this.deps.db, run.conversation_id, message.seq, TRANSCRIPT_TURNS);
    const earlier = before.filter((t) => t.role === 'customer').map((t) => t.content);
    if (earlier.length === 0) return undefined;
    let query = message.content;
    for (const turn of earlier.reverse()) {
      if (query.length + turn.length + 1 > THREAD_QUERY_CHARS) break;
      query = `${query}\n${turn}`;
    }
    return query === message.content ? undefined : query;
  }

  /** One planner turn: tool calls are recorded (validated, gated), a reply or handoff is kept for finishRun. */
  async planNextStep(input: { runId: string; step: number }): Promise<PlanStepResult> {
    const { db } = this.deps;
    const { run, config } = await this.load(input.runId);
    const [message, conversation, calls] = await Promise.all([
      this.customerMessage(run),
      this.deps.conversations.getConversation(db, run.conversation_id),
      this.repo.listToolCalls(db, run.id),
    ]);
    const transcript = await this.deps.conversations.listTranscriptBefore(db, run.conversation_id, message.seq, TRANSCRIPT_TURNS);
    const retrieval = run.retrieval as StoredRetrievalItem[];
    const decision = await this.deps.planner.plan({
      instructions: config.instructions,
      channel: run.channel,
      locale: (conversation?.customer as { locale?: string } | undefined)?.locale ?? config.locales[0] ?? null,
      context: conversation?.context ?? {},
      transcript: transcript.map((t) => ({ role: t.role, content: t.content })),
      message: message.content,
      passages: retrieval.map((p, i) => ({ ref: i + 1, sourceId: p.source_id, title: p.title, text: p.content, url: p.url, score: p.score })),
      tools: config.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      toolResults: calls.filter((c) => isSettled(c.status)).map(toPlannerResult),
      retrievalRequired: config.retrieval_required,
    });
    const usage = { input_tokens: run.usage.input_tokens + decision.usage.input_tokens, output_tokens: run.usage.output_tokens + decision.usage.output_tokens };
    if (decision.type !== 'tool_calls') {
      await this.repo.updateRun(db, run.id, { decision: JSON.stringify(redactDeep(decision)), usage: JSON.stringify(usage) });
      return { type: decision.type };
    }
    const rows = decision.calls.map((call, i) => {
      const id = derivedId(IdPrefix.toolCall, run.id, String(input.step), String(i));
      const tool = config.tools.find((t) => t.name === call.tool);
      const args = redactDeep(call.arguments ?? {});
      const problem = !tool
        ? `There is no tool named '${call.tool}'`
        : (() => {
            const v = validateToolArguments({ schema: tool.parameters, arguments: args });
            return v.ok ? null : v.message;
          })();
      const status: ToolCallStatus = problem ? 'invalid' : config.guardrails.requires_approval.includes(call.tool) ? 'awaiting_approval' : 'ready';
      return {
        id,
        run_id: run.id,
        seq: calls.length + i + 1,
        tool: call.tool,
        arguments: JSON.stringify(args),
        status,
        result: null,
        error: problem ? JSON.stringify({ code: 'invalid_arguments', message: problem }) : null,
        latency_ms: null,
        expires_at: null,
        decision_note: null,
      };
    });
    await this.repo.insertToolCalls(db, rows);
    await this.repo.updateRun(db, run.id, { usage: JSON.stringify(usage) });
    const stored = await this.repo.listToolCalls(db, run.id);
    return { type: 'tool_calls', calls: rows.map((r) => ({ id: r.id, status: stored.find((s) => s.id === r.id)?.status ?? r.status })) };
  }

  /**
   * One tool call per SPEC's tool endpoint contract (signed POST, timeout, one retry on network errors
   * when idempotent). A call whose earlier attempt died mid-flight is resent only when the tool is
   * idempotent; otherwise it is recorded as an error (it may have reached the tool).
   */
  async callTool(input: { runId: string; toolCallId: string }): Promise<{ status: ToolCallStatus }> {
    const { db } = this.deps;
    const { run, config } = await this.load(input.runId);
    const call = await this.repo.getToolCall(db, run.id, input.toolCallId);
    if (!call) throw notFound('tool call', input.toolCallId);
    if (call.status !== 'ready' && call.status !== 'approved' && call.status !== 'calling') return { status: call.status };
    const tool = config.tools.find((t) => t.name === call.tool)!;
    if (call.status === 'calling' && !tool.idempotent) {
      const error = { code: 'uncertain', message: 'The worker stopped during the call; a non-idempotent tool is not called twice' };
      await this.repo.transitionToolCall(db, call.id, ['calling'], 'error', { error: JSON.stringify(error) });
      return { status: 'error' };
    }
    await db.transaction().execute(async (tx) => {
      await this.repo.lockRun(tx, run.id);
      await this.repo.transitionToolCall(tx, call.id, ['ready', 'approved', 'calling'], 'calling', { attempts: call.attempts + 1 });
      await this.repo.appendEvents(tx, run.id, [{ type: 'tool.called', data: { run_id: run.id, tool_call_id: call.id, tool: call.tool, arguments: call.arguments } }]);
    });
    await this.deps.notifier.publish(run.id);
    const outcome = await callToolEndpoint({
      endpoint: tool.endpoint,
      tool: tool.name,
      arguments: call.arguments,
      conversationId: run.conversation_id,
      runId: run.id,
      signingSecret: await this.deps.accounts.getSigningSecret({ accountId: run.account_id }),
      timeoutMs: tool.timeout_ms,
      idempotent: tool.idempotent,
      allowPrivate: this.deps.allowPrivateNetwork,
      // Checked again at call time: a live run never calls a tool over plain http (whatever was saved before).
      requireHttps: run.livemode,
      idempotencyKey: call.id,
    });
    const status: ToolCallStatus = outcome.status === 'pending' ? 'pending_result' : outcome.status;
    await this.repo.transitionToolCall(db, call.id, ['calling'], status, {
      latency_ms: Math.round(outcome.latencyMs),
      result: outcome.status === 'ok' ? JSON.stringify(redactDeep(outcome.result ?? null)) : null,
      error: outcome.status === 'error' ? JSON.stringify(redactDeep(outcome.error)) : outcome.status === 'timed_out' ? JSON.stringify({ code: 'timed_out', message: `No answer within ${tool.timeout_ms} ms` }) : null,
    });
    return { status };
  }

  /** in_progress → requires_action with the calls to approve or to await (run.requires_action). */
  async requireAction(input: { runId: string; kind: 'approve_tool_call' | 'submit_tool_result'; toolCallIds: string[]; expiresAtMs: number }) {
    const expiresAt = new Date(input.expiresAtMs);
    // The transition and its run.requires_action event commit together (events outbox).
    await this.deps.events.transaction(async (tx) => {
      await this.repo.setToolCallsExpiry(tx, input.toolCallIds, expiresAt);
      const all = await this.repo.listToolCalls(tx, input.runId);
      const calls = all.filter((c) => input.toolCallIds.includes(c.id));
      const action = { type: input.kind, tool_calls: calls.map((c) => ({ id: c.id, tool: c.tool, arguments: c.arguments })), expires_at: expiresAt.toISOString() };
      const moved = await this.repo.transitionRun(tx, input.runId, 'requires_action', { required_action: JSON.stringify(action) });
      if (!moved) return;
      await this.repo.appendEvents(tx, input.runId, [{ type: 'run.requires_action', data: { run_id: input.runId, required_action: action } }]);
      await this.deps.finisher.emitRunEvent(moved, 'run.requires_action', { tx, calls: all });
      await this.deps.notifier.notifyOnCommit(tx, input.runId);
    });
    this.deps.notifier.notifyLocally(input.runId);
  }

  /** After the wait: expires what is still pending when `expire`, resumes the run, returns the calls' statuses. */
  async collectToolCalls(input: { runId: string; toolCallIds: string[]; expire: boolean }): Promise<{ id: string; status: ToolCallStatus }[]> {
    const { db } = this.deps;
    if (input.expire) await this.repo.expireToolCalls(db, input.toolCallIds);
    const calls = (await this.repo.listToolCalls(db, input.runId)).filter((c) => input.toolCallIds.includes(c.id));
    await this.repo.transitionRun(db, input.runId, 'in_progress', { required_action: null });
    await this.deps.notifier.publish(input.runId);
    return calls.map((c) => ({ id: c.id, status: c.status }));
  }

  async finishRun(input: { runId: string; handoffReason?: 'approval_rejected' | 'approval_expired' }): Promise<{ status: 'completed' | 'failed' | 'expired'; deliver: boolean }> {
    return this.deps.finisher.finishRun(input);
  }

  async deliverReply(input: { runId: string }): Promise<void> {
    return this.deps.finisher.deliverReply(input);
  }

  async expireRun(input: { runId: string }): Promise<{ status: 'expired' }> {
    await this.deps.finisher.endRun({ runId: input.runId, status: 'expired' });
    return { status: 'expired' };
  }

  async failRun(input: { runId: string; code: string; message: string }): Promise<{ status: 'failed' }> {
    await this.deps.finisher.endRun({ runId: input.runId, status: 'failed', error: { code: input.code, message: redactText(input.message).text } });
    return { status: 'failed' };
  }
}

const SETTLED: ToolCallStatus[] = ['ok', 'error', 'timed_out', 'rejected', 'expired', 'invalid'];
const isSettled = (s: ToolCallStatus) => SETTLED.includes(s);

function toPlannerResult(c: { id: string; tool: string; arguments: Record<string, unknown>; status: ToolCallStatus; result: unknown; error: { code: string; message: string } | null }): PlannerToolResult {
  const status: PlannerToolResult['status'] = c.status === 'invalid' ? 'error' : (c.status as PlannerToolResult['status']);
  return { callId: c.id, tool: c.tool, arguments: c.arguments, status, result: c.result ?? undefined, error: c.error ?? undefined };
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

export type { RunStatus, AgentConfig };
