import type { Kysely } from 'kysely';
import type { AgentsService } from '../agents/agents.service';
import { redactText } from '../agents/guardrails/redaction';
import type { HandoffReason, PlannerDecision } from '../agents/planner/port';
import type { ReplyChannels } from '../channels/reply-channels';
import type { ConversationRepo } from '../conversations/conversation.repo';
import { toConversationMessageObject, toConversationObject } from '../conversations/conversation.schemas';
import type { DB } from '../db/schema';
import { derivedId, IdPrefix } from '../domain/ids';
import { notFound } from '../domain/errors';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService, EventTransaction } from '../webhooks/events.service';
import { agentRunWorkflowId, previousRunFinishedSignal } from '../../workflows/shared/runs.contracts';
import { decideRunOutcome } from './run-outcome';
import type { RunNotifier } from './run-notifier';
import { RunRepo, type RunEventInput, type RunRow, type ToolCallRow } from './run.repo';
import { toRunObject, type GuardrailNote, type StoredRetrievalItem } from './run.schemas';

/** reply.delta events: the reply streamed in pieces of about this many characters, on word boundaries. */
const DELTA_CHARS = 48;

/**
 * Ends runs: the final guardrails and outcome (run-outcome.ts), the reply message, the handoff, the stream
 * events and the webhook events, all idempotent (a finished run is left as it is); then the conversation's
 * next queued run is signalled.
 */
export class RunFinisher {
  private readonly repo = new RunRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      agents: AgentsService;
      conversations: ConversationRepo;
      events: EventsService;
      workflows: WorkflowGateway;
      notifier: RunNotifier;
      /** Shapes replies for the run's channel and sends them there (sms, email, voice; chat only returns). */
      channels: ReplyChannels;
    },
  ) {}

  /**
   * `deliver`: the run wrote a reply that goes out on a channel besides the API response; the workflow
   * then calls deliverReply (a retried activity of its own, so a channel fault never loses the reply).
   */
  async finishRun(input: { runId: string; handoffReason?: HandoffReason }): Promise<{ status: 'completed' | 'failed' | 'expired'; deliver: boolean }> {
    const { db } = this.deps;
    const run = await this.repo.getRun(db, input.runId);
    if (!run) throw notFound('run', input.runId);
    if (run.status === 'completed' || run.status === 'failed' || run.status === 'expired') {
      return { status: run.status, deliver: this.hasReplyToSend(run) };
    }
    const [{ config }, message, conversationRow, calls] = await Promise.all([
      this.deps.agents.getVersion({ agentId: run.agent_id, version: run.agent_version }),
      this.deps.conversations.getMessage(db, run.message_id),
      this.deps.conversations.getConversation(db, run.conversation_id),
      this.repo.listToolCalls(db, run.id),
    ]);
    if (!conversationRow) throw notFound('conversation', run.conversation_id);
    const retrieval = run.retrieval as StoredRetrievalItem[];
    const outcome = decideRunOutcome({
      config,
      decision: run.decision as PlannerDecision | null,
      retrieval,
      customerMessage: message?.content ?? '',
      forcedHandoff: input.handoffReason,
      notes: run.guardrail_notes as GuardrailNote[],
    });
    const cited = retrieval.map((item, i) => ({ ...item, cited: outcome.citations.includes(i + 1) }));
    const toShape =
      outcome.reply === null
        ? null
        : {
            accountId: run.account_id,
            conversation: conversationRow,
            runId: run.id,
            text: redactText(outcome.reply).text,
            sources: outcome.citations
              .map((ref) => retrieval[ref - 1]!)
              .map(({ title, url, snippet, source_id, source }) => ({ title, url, snippet, sourceId: source_id, knowledgeBaseId: source })),
          };
    const reply = toShape === null ? null : await this.deps.channels.shapeReply(run.channel, toShape);
    const attachments = toShape === null ? [] : this.deps.channels.replyAttachments(run.channel, toShape);
    const replyId = derivedId(IdPrefix.message, run.id, 'reply');

    // The run's state, its reply, the handoff, the stream events and the webhook events commit together
    // (the events outbox): a crash after the commit loses no event, and a retry finds the run finished.
    const done = await this.deps.events.transaction(async (tx) => {
      const row = await this.repo.transitionRun(tx, run.id, 'completed', {
        confidence: Math.round(outcome.confidence * 10_000) / 10_000,
        reply: reply === null ? null : JSON.stringify({ role: 'agent', content: reply }),
        handoff: outcome.handoff ? JSON.stringify(outcome.handoff) : null,
        guardrail_notes: JSON.stringify(outcome.notes),
        retrieval: JSON.stringify(cited),
        required_action: null,
        reply_message_id: reply === null ? null : replyId,
        completed_at: new Date(),
      });
      if (!row) return undefined;
      const stream: RunEventInput[] = [];
      let replyRow;
      if (reply !== null) {
        replyRow = await this.deps.conversations.insertMessage(tx, {
          id: replyId,
          account_id: run.account_id,
          livemode: run.livemode,
          conversation_id: run.conversation_id,
          role: 'agent',
          channel: run.channel,
          content: reply,
          attachments: JSON.stringify(attachments),
          run_id: run.id,
        });
        for (const text of deltas(reply)) stream.push({ type: 'reply.delta', data: { run_id: run.id, text } });
      }
      const conversation = outcome.handoff
        ? await this.deps.conversations.setStatus(tx, run.conversation_id, 'handed_off', { handoff: JSON.stringify(outcome.handoff) })
        : conversationRow;
      stream.push({ type: 'run.completed', data: { run_id: run.id, status: 'completed' } });
      await this.repo.appendEvents(tx, run.id, stream);
      const metadata = conversationRow.metadata;
      if (replyRow) {
        const messageObject = toConversationMessageObject(replyRow, metadata);
        await this.deps.events.emit({ accountId: run.account_id, livemode: run.livemode, type: 'conversation.message', data: messageObject, eventId: derivedId(IdPrefix.event, replyRow.id, 'conversation.message') }, { tx });
      }
      if (outcome.handoff && conversation) {
        await this.deps.events.emit(
          { accountId: run.account_id, livemode: run.livemode, type: 'conversation.handoff', data: { ...toConversationObject(conversation), run_id: run.id }, eventId: derivedId(IdPrefix.event, run.id, 'conversation.handoff') },
          { tx },
        );
      }
      await this.emitRunEvent(row, 'run.completed', { tx, calls, metadata });
      await this.deps.notifier.notifyOnCommit(tx, run.id);
      return { row };
    });
    if (!done) {
      const now = (await this.repo.getRun(db, run.id))!;
      return { status: now.status as 'completed', deliver: this.hasReplyToSend(now) };
    }
    this.deps.notifier.notifyLocally(run.id);

    const { row } = done;
    await this.signalNextRun(row);
    return { status: 'completed', deliver: this.hasReplyToSend(row) };
  }

  /** A reply was written and its channel sends it after the run (sms, email; not chat or voice). */
  private hasReplyToSend(run: RunRow): boolean {
    return run.reply_message_id !== null && this.deps.channels.sendsAfterRun(run.channel);
  }

  /** Sends a finished run's reply on its channel (idempotent: each adapter keys its send by the message id). */
  async deliverReply(input: { runId: string }): Promise<void> {
    const { db } = this.deps;
    const run = await this.repo.getRun(db, input.runId);
    if (!run) throw notFound('run', input.runId);
    if (!this.hasReplyToSend(run) || !run.reply_message_id) return;
    const [message, conversation] = await Promise.all([
      this.deps.conversations.getMessage(db, run.reply_message_id),
      this.deps.conversations.getConversation(db, run.conversation_id),
    ]);
    if (!message || !conversation) return;
    await this.deps.channels.deliverReply(run.channel, { conversation, message: toConversationMessageObject(message, conversation.metadata), runId: run.id });
  }

  /** Ends a run without a reply: `expired` (a required action not fulfilled in time) or `failed`. */
  async endRun(input: { runId: string; status: 'expired' | 'failed'; error?: { code: string; message: string } }) {
    const row = await this.deps.events.transaction(async (tx) => {
      const moved = await this.repo.transitionRun(tx, input.runId, input.status, {
        error: input.error ? JSON.stringify(input.error) : null,
        required_action: null,
        completed_at: new Date(),
      });
      if (!moved) return undefined;
      await this.repo.appendEvents(tx, input.runId, [{ type: 'run.completed', data: { run_id: input.runId, status: input.status } }]);
      await this.emitRunEvent(moved, 'run.completed', { tx });
      await this.deps.notifier.notifyOnCommit(tx, moved.id);
      return moved;
    });
    if (!row) return;
    this.deps.notifier.notifyLocally(row.id);
    await this.signalNextRun(row);
  }

  /**
   * run.completed / run.requires_action webhook events carry the run object. Emitted in the transaction
   * of the transition (`tx`), so the event commits with it; `calls` and `metadata` save the reads when
   * the caller has them.
   */
  async emitRunEvent(
    run: RunRow,
    type: 'run.completed' | 'run.requires_action',
    opts: { tx: EventTransaction; calls?: ToolCallRow[]; metadata?: Record<string, string> },
  ) {
    const { tx } = opts;
    const [calls, metadata] = await Promise.all([
      opts.calls ?? this.repo.listToolCalls(tx, run.id),
      opts.metadata ?? this.deps.conversations.getConversation(tx, run.conversation_id).then((c) => c?.metadata ?? {}),
    ]);
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

  private async signalNextRun(run: RunRow) {
    const next = await this.repo.findNextQueuedRun(this.deps.db, run);
    if (next) await this.deps.workflows.signalIfRunning(agentRunWorkflowId(next.id), previousRunFinishedSignal);
  }
}

/** Splits a reply into word-boundary pieces for reply.delta events (their concatenation is the reply). */
export function deltas(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + DELTA_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space + 1;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}
