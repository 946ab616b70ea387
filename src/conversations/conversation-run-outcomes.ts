import type { Kysely, Transaction } from 'kysely';
import type { ReplyChannels } from './reply-channels';
import type { DB } from '../db/schema';
import type { ConversationChannel, MessageCitation } from '../db/tables/agents';
import { derivedId, IdPrefix } from '../domain/ids';
import type { RunConversationsPort, RunReplySource } from '../runs/run-conversations.port';
import type { Handoff } from '../runs/run.schemas';
import type { EventsService } from '../webhooks/events.service';
import { ConversationRepo, type ConversationRow } from './conversation.repo';
import { ConversationEventRepo } from './conversation-event.repo';
import type { ConversationEventsNotifier } from './conversation-events.notifier';
import { toConversationMessageObject, toConversationObject } from './conversation.schemas';
import type { AgentConfig } from '../agents/agent.schemas';
import { redactText } from '../privacy/redaction';
import { composeHandoffNotice } from './handoff-notice';
import { customerLocaleOf, resolutionQuestion, withResolutionQuestion } from './resolution-question';
import type { QueuesService } from './queues.service';

/**
 * The conversation side of a run's outcome (RunConversationsPort: its reply shaped and written as the
 * agent's turn, a handoff, the reply's delivery) and the one writer of agent turns. ConversationsService
 * holds one (`runOutcomes`) beside the API and channel side (conversations, customer and human messages, runs started).
 */
export class ConversationRunOutcomes implements RunConversationsPort {
  private readonly repo = new ConversationRepo();
  private readonly streamEvents = new ConversationEventRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      events: EventsService;
      /** Shapes and sends replies on the conversation's channel (sms, email, voice); chat only stores them. */
      channels: ReplyChannels;
      /** The business hours of the queue a run hands off to (the notice's after-hours text). */
      queues: Pick<QueuesService, 'hoursOf'>;
      /** The clock the notice's business hours are read at. */
      clock: () => Date;
      /**
       * This process's conversation streams: a delta streamed on its own (committed as its insert returns)
       * goes to them at once, without waiting for its notification to come back through the listener
       * (the stream sends each number once, whichever arrives first; other processes' streams hear the NOTIFY).
       */
      streams?: Pick<ConversationEventsNotifier, 'publishStoredDelta'>;
    },
  ) {}

  /** The reply shaped for its channel; on SMS and email, with the agent's resolution question after it when enabled. */
  async shapeRunReply(input: { channel: ConversationChannel; accountId: string; conversation: ConversationRow; runId: string; text: string; sources: RunReplySource[]; agent?: Pick<AgentConfig, 'locales' | 'resolution_question'> }) {
    const { channel, agent, ...toShape } = input;
    const shaped = await this.deps.channels.shapeReply(channel, toShape);
    const question = resolutionQuestion({ setting: agent?.resolution_question, channel, customerLocale: customerLocaleOf(input.conversation), agentLocales: agent?.locales ?? [] });
    return { content: withResolutionQuestion(shaped, question), attachments: this.deps.channels.replyAttachments(channel, toShape) };
  }

  sendsAfterRun(channel: ConversationChannel): boolean {
    return this.deps.channels.sendsAfterRun(channel);
  }

  async appendRunReply(
    tx: Transaction<DB>,
    input: { conversation: ConversationRow; messageId: string; runId: string; channel: ConversationChannel; content: string; attachments: string[]; citations: MessageCitation[] },
  ): Promise<void> {
    await this.writeAgentMessage(input.conversation, input, tx);
  }

  async handOff(
    tx: Transaction<DB>,
    input: { conversation: ConversationRow; runId: string; handoff: Handoff; channel: ConversationChannel; noticeMessageId: string; agent: Pick<AgentConfig, 'locales' | 'handoff'> },
  ): Promise<boolean> {
    const { conversation } = input;
    const row = await this.repo.setStatus(tx, conversation.id, 'handed_off', { handoff: JSON.stringify(input.handoff), unread: true });
    if (!row) return false;
    // Voice speaks its own transfer notice in the call (VoiceCallsService); every other channel gets a written one.
    const notice = input.channel === 'voice' ? undefined : await this.composeNotice(tx, conversation, input.handoff.queue, input.agent);
    if (notice !== undefined) await this.writeMessage(conversation, { messageId: input.noticeMessageId, channel: input.channel, content: notice, attachments: [], runId: input.runId, role: 'system' }, tx);
    await this.deps.events.emit(
      {
        accountId: conversation.account_id,
        livemode: conversation.livemode,
        type: 'conversation.handoff',
        data: { ...toConversationObject(row), run_id: input.runId },
        eventId: derivedId(IdPrefix.event, input.runId, 'conversation.handoff'),
      },
      { tx },
    );
    return notice !== undefined;
  }

  /** The customer's handoff notice: the agent's (or the default) text for their locale, after hours when the queue is closed now. */
  private async composeNotice(tx: Transaction<DB>, conversation: ConversationRow, queue: string, agent: Pick<AgentConfig, 'locales' | 'handoff'>): Promise<string> {
    const hours = await this.deps.queues.hoursOf({ accountId: conversation.account_id, livemode: conversation.livemode }, queue, tx);
    const locale = (conversation.customer as Record<string, unknown>).locale;
    const { content } = composeHandoffNotice({
      agent: agent.handoff,
      customerLocale: typeof locale === 'string' ? locale : undefined,
      agentLocales: agent.locales,
      hours,
      now: this.deps.clock(),
    });
    return redactText(content).text;
  }

  async appendReplyEvent(db: Kysely<DB> | Transaction<DB>, input: { conversationId: string; type: 'reply.delta' | 'reply.retracted'; data: Record<string, unknown> & { run_id: string }; live?: boolean }): Promise<void> {
    const live = input.live === true && input.type === 'reply.delta' && !db.isTransaction;
    const seq = await this.streamEvents.append(db, input.conversationId, input.type, input.data, { asyncCommit: live });
    if (live) this.deps.streams?.publishStoredDelta(input.conversationId, { seq, data: input.data });
  }

  async streamedReply(db: Kysely<DB> | Transaction<DB>, input: { conversationId: string; runId: string }): Promise<string> {
    return this.streamEvents.streamedReply(db, input.conversationId, input.runId);
  }

  async deliverRunReply(input: { conversationId: string; messageId: string; runId: string; channel: ConversationChannel }): Promise<void> {
    const [message, conversation] = await Promise.all([this.repo.getMessage(this.deps.db, input.messageId), this.repo.getConversation(this.deps.db, input.conversationId)]);
    // A test conversation (console test chat, evaluation) never reaches a customer on a channel.
    if (!message || !conversation || conversation.test) return;
    await this.deps.channels.deliverReply(input.channel, { conversation, message: toConversationMessageObject(message, conversation.metadata), runId: input.runId });
  }

  /**
   * The one writer of agent turns: the message (idempotent by its id) and, when it is new, its
   * conversation.message event, both in `tx` when given (a run's finishing transaction commits them with
   * the run). Undefined when the message was written before.
   */
  async writeAgentMessage(
    conversation: ConversationRow,
    input: { messageId: string; channel: ConversationChannel; content: string; attachments: string[]; runId: string | null; citations?: MessageCitation[] },
    tx?: Transaction<DB>,
  ) {
    return this.writeMessage(conversation, { ...input, role: 'agent' }, tx);
  }

  /** An agent turn or a `system` message (the handoff notice), with its conversation.message event. */
  private async writeMessage(
    conversation: ConversationRow,
    input: { messageId: string; channel: ConversationChannel; content: string; attachments: string[]; runId: string | null; role: 'agent' | 'system'; citations?: MessageCitation[] },
    tx?: Transaction<DB>,
  ) {
    const row = await this.repo.insertMessage(tx ?? this.deps.db, {
      id: input.messageId,
      account_id: conversation.account_id,
      livemode: conversation.livemode,
      conversation_id: conversation.id,
      role: input.role,
      channel: input.channel,
      content: input.content,
      attachments: JSON.stringify(input.attachments),
      run_id: input.runId,
      citations: JSON.stringify(input.citations ?? []),
    });
    if (!row) return undefined;
    const object = toConversationMessageObject(row, conversation.metadata);
    await this.deps.events.emit(
      { accountId: conversation.account_id, livemode: conversation.livemode, type: 'conversation.message', data: object, eventId: derivedId(IdPrefix.event, row.id, 'conversation.message') },
      { tx },
    );
    return row;
  }
}
