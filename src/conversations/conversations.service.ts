import type { Kysely, Transaction } from 'kysely';
import type { AgentsService, AgentVersion } from '../agents/agents.service';
import { redactDeep, redactText } from '../privacy/redaction';
import type { ReplyChannels } from './reply-channels';
import type { Config } from '../config/env';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import type { ConversationChannel, ConversationStatus } from '../db/tables/agents';
import { AppError, notFound } from '../domain/errors';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import { newRunRow } from '../runs/run-lifecycle';
import { RunRepo, type RunRow } from '../runs/run.repo';
import type { RunObject } from '../runs/run.schemas';
import type { RunsService } from '../runs/runs.service';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService } from '../webhooks/events.service';
import type { Logger } from '../observability/logger';
import { agentRunWorkflowContract, agentRunWorkflowId } from '../../workflows/shared/runs.contracts';
import { ConversationRepo, type ConversationListFilter, type ConversationRow, type ConversationToPost } from './conversation.repo';
import { ConversationRunOutcomes } from './conversation-run-outcomes';
import { ConversationTurns } from './conversation-turns';
import type { ConversationEventsNotifier } from './conversation-events.notifier';
import {
  toConversationMessageObject,
  toConversationObject,
  type AssigneeObject,
  type ConversationMessageObject,
  type ConversationObject,
} from './conversation.schemas';
import { scopeOf, type Scope } from '../domain/principal';
import type { QueuesService } from './queues.service';
import type { CreateConversationInput, CustomerMatch, PostMessageInput } from './conversation-inputs';

export { assertCustomerPhone, type CreateConversationInput, type CustomerMatch, type PostMessageInput } from './conversation-inputs';

/**
 * Conversations and their transcripts, and the only writer of conversation messages. A customer message
 * starts a run (a workflow per run; runs of a conversation answer in order, see RunStepsService.startRun);
 * the runs reach back through RunConversationsPort (their reply, a handoff, the reply's delivery: its
 * `runOutcomes`, a ConversationRunOutcomes, which also writes every agent turn).
 * Customer text is redacted before it is stored, so card numbers and national ids reach no table, log,
 * webhook or workflow history.
 */
export class ConversationsService {
  private readonly repo = new ConversationRepo();
  private readonly runs = new RunRepo();
  /** What runs write into conversations (RunConversationsPort); the container hands it to the run steps. */
  readonly runOutcomes: ConversationRunOutcomes;
  /** The run's agent version, the resolution question's yes, the widget's proactive turn, a human reply's sending. */
  private readonly turns: ConversationTurns;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      agents: AgentsService;
      events: EventsService;
      workflows: WorkflowGateway;
      runsService: RunsService;
      config: Config;
      /** Sends a human's desk reply on the conversation's channel (sms, email); chat only stores it. */
      channels: ReplyChannels;
      /** Queues' business hours (the handoff notice's after-hours text). */
      queues: Pick<QueuesService, 'hoursOf'>;
      /** The clock business hours are read at (default: the system's). */
      clock?: () => Date;
      log: Logger;
      /** This process's conversation streams, handed a streamed delta as soon as it is stored (see ConversationRunOutcomes). */
      streams?: Pick<ConversationEventsNotifier, 'publishStoredDelta'>;
    },
  ) {
    this.runOutcomes = new ConversationRunOutcomes({ ...deps, clock: deps.clock ?? (() => new Date()) });
    this.turns = new ConversationTurns({ ...deps, repo: this.repo });
  }

  get conversationRepo() {
    return this.repo;
  }

  async createConversation(input: CreateConversationInput): Promise<ConversationObject> {
    return toConversationObject((await this.openConversation(input)).row);
  }

  /** Creates the conversation; answers its row and the agent version its runs use (so a first post reads neither again). */
  private async openConversation(input: CreateConversationInput): Promise<{ row: ConversationToPost; live: AgentVersion }> {
    const live = input.evaluation
      ? await this.deps.agents.getVersion({ agentId: input.agent_id, version: input.evaluation.agentVersion })
      : await this.turns.versionFor({ ...scopeOf(input), agentId: input.agent_id, test: input.test ?? false });
    // A test chat is always chat: nothing of a draft's test may reach a customer over sms, email or voice.
    // An evaluation's conversation keeps its case's channel (shaping) and is never delivered (ConversationRunOutcomes).
    const channel = input.test && !input.evaluation ? 'chat' : (input.channel ?? 'chat');
    if (!input.test && !live.config.channels.includes(channel)) {
      throw new AppError('channel_not_supported', `Agent ${input.agent_id} is not configured for the ${channel} channel (it has ${live.config.channels.join(', ')})`, { param: 'channel' });
    }
    const row = await this.repo.insertConversation(this.deps.db, {
      id: input.evaluation?.conversationId ?? newId(IdPrefix.conversation),
      account_id: input.accountId,
      livemode: input.livemode,
      agent_id: input.agent_id,
      channel,
      status: 'active',
      customer: JSON.stringify(redactDeep(input.customer ?? {})),
      context: JSON.stringify(redactDeep(input.context ?? {})),
      tags: JSON.stringify(input.tags ?? []),
      metadata: JSON.stringify(redactDeep(input.metadata ?? {})),
      handoff: null,
      closed_at: null,
      test: (input.test ?? false) || input.evaluation !== undefined,
      pinned_agent_version: input.evaluation?.agentVersion ?? null,
      visitor_id: input.visitorId ?? null,
    });
    return { row: { ...row, agent_live_version: row.test ? null : live.version }, live };
  }

  /**
   * A conversation with no agent (a customer wrote to a number that has none attached): the team's from the
   * start, so it waits in the inbox's handoff queue, unread, with no handoff object (nothing was escalated).
   */
  private async openTeamConversation(input: Scope & { channel: ConversationChannel; customer: Record<string, string | undefined>; metadata?: Record<string, string> }): Promise<ConversationToPost> {
    const row = await this.repo.insertConversation(this.deps.db, {
      id: newId(IdPrefix.conversation),
      account_id: input.accountId,
      livemode: input.livemode,
      agent_id: null,
      channel: input.channel,
      status: 'handed_off',
      customer: JSON.stringify(redactDeep(input.customer)),
      context: JSON.stringify({}),
      tags: JSON.stringify([]),
      metadata: JSON.stringify(redactDeep(input.metadata ?? {})),
      handoff: null,
      closed_at: null,
      unread: true,
    });
    // The team is told as for any handoff (conversation.handoff; `run_id` null: no run escalated it).
    await this.deps.events.emit({ ...scopeOf(input), type: 'conversation.handoff', data: { ...toConversationObject(row), run_id: null }, eventId: derivedId(IdPrefix.event, row.id, 'conversation.handoff') });
    return { ...row, agent_live_version: null };
  }

  async getConversation(input: Scope & { conversationId: string }): Promise<ConversationObject> {
    return toConversationObject(await this.getRow(scopeOf(input), input.conversationId));
  }

  /**
   * The conversations as the team's API reads them (a secret key): each with its `assignee` (one query for
   * the page). Visitors and webhooks never get it.
   */
  async withAssignees<T extends ConversationObject>(input: Scope & { conversations: T[] }): Promise<(T & { assignee: AssigneeObject | null })[]> {
    const rows = await this.repo.assigneesOf(this.deps.db, scopeOf(input), input.conversations.map((c) => c.id));
    const by = new Map(rows.map((r) => [r.conversation_id, { id: r.id, email: r.email, display_name: r.display_name || r.email }]));
    return input.conversations.map((c) => ({ ...c, assignee: by.get(c.id) ?? null }));
  }

  async listConversations(input: Scope & { page: PageParams } & ConversationListFilter) {
    const { accountId, livemode, page, ...filter } = input;
    const result = await this.repo.listConversations(this.deps.db, { accountId, livemode }, page, filter);
    return { object: 'list' as const, data: result.data.map(toConversationObject), has_more: result.has_more };
  }

  /** Resolves and closes the conversation (conversation.closed); later posts are 409 conversation_closed. */
  async closeConversation(input: Scope & { conversationId: string }): Promise<ConversationObject> {
    const current = await this.getRow(scopeOf(input), input.conversationId);
    if (current.status === 'closed') return toConversationObject(current);
    const row = (await this.repo.setStatus(this.deps.db, current.id, 'closed', { closed_at: new Date(), handoff: null })) ?? (await this.getRow(scopeOf(input), current.id));
    const object = toConversationObject(row);
    await this.deps.events.emit({ accountId: row.account_id, livemode: row.livemode, type: 'conversation.closed', data: object, eventId: derivedId(IdPrefix.event, row.id, 'conversation.closed') });
    return object;
  }

  /** Closes the open handoff with a note: control returns to the agent (status back to active). */
  async closeHandoff(input: Scope & { conversationId: string; note: string }): Promise<ConversationObject> {
    const current = await this.getRow(scopeOf(input), input.conversationId);
    if (current.status === 'closed') throw closedError(current.id);
    if (current.status !== 'handed_off') throw new AppError('resource_conflict', `Conversation ${current.id} has no open handoff`, { param: 'id' });
    if (current.agent_id === null) throw new AppError('resource_conflict', `Conversation ${current.id} has no agent to return to: the team answers it (close the conversation when done)`, { param: 'id' });
    const row = (await this.repo.setStatus(this.deps.db, current.id, 'active', { handoff: null }))!;
    await this.deps.events.emit({
      accountId: row.account_id, livemode: row.livemode,
      type: 'conversation.handoff.closed',
      data: { ...toConversationObject(row), note: redactText(input.note).text, previous_handoff: current.handoff },
    });
    return toConversationObject(row);
  }

  /**
   * Appends a message. A customer message (trigger_run, default true) starts a run unless a human holds
   * the conversation (handed_off: the desk answers); a human message never does. With a run, the response
   * carries it as it stands after `waitMs` (settled sooner when it completes or requires action).
   * A human message on a conversation whose channel is not chat is also sent there (see ConversationTurns.deliverHumanReply).
   */
  async postMessage(input: PostMessageInput & { waitMs?: number }): Promise<ConversationMessageObject & { run?: RunObject }> {
    const conversation = await this.repo.getConversationToPost(this.deps.db, scopeOf(input), input.conversationId);
    if (!conversation) throw notFound('conversation', input.conversationId);
    if (input.testChatOfAgent !== undefined && (!conversation.test || conversation.agent_id !== input.testChatOfAgent)) {
      throw notFound('conversation', input.conversationId);
    }
    // An evaluation's test conversation (pinned to the version under test) is readable, but only its
    // evaluation writes to it: a desk reply there would go out over SMS or email to the case's customer.
    if (conversation.pinned_agent_version !== null && !input.byEvaluation) {
      throw new AppError('resource_conflict', `Conversation ${conversation.id} is an evaluation's test conversation: only its evaluation posts messages to it`, { param: 'id' });
    }
    return this.post(conversation, input);
  }

  /** postMessage on a conversation already read (`version`: its agent version, when already resolved). */
  private async post(conversation: ConversationToPost, input: PostMessageInput & { waitMs?: number }, version?: AgentVersion): Promise<ConversationMessageObject & { run?: RunObject }> {
    const { db } = this.deps;
    if (conversation.status === 'closed') throw closedError(conversation.id);
    const agentId = conversation.agent_id;
    // No agent (a number without one): the team answers every message; nothing runs.
    const triggers = input.role === 'customer' && (input.trigger_run ?? true) && conversation.status === 'active' && agentId !== null;
    const live = triggers && agentId !== null ? (version ?? (await this.turns.runVersionOf({ ...conversation, agent_id: agentId }, scopeOf(input)))) : undefined;
    const messageId = input.messageId ?? newId(IdPrefix.message);
    const runId = live ? (input.messageId ? derivedId(IdPrefix.run, input.messageId) : newId(IdPrefix.run)) : null;
    const channel = input.channel ?? conversation.channel;
    let insertedRun: RunRow | undefined;
    const messageRow = {
      id: messageId,
      account_id: input.accountId,
      livemode: input.livemode,
      conversation_id: conversation.id,
      role: input.role,
      channel,
      content: redactText(input.content).text,
      attachments: JSON.stringify(input.attachments ?? []),
      run_id: runId,
      author: input.role === 'human' && input.author ? JSON.stringify(input.author) : null,
    };
    const runRow = live && runId && agentId !== null
      ? newRunRow({ id: runId, ...scopeOf(input), conversationId: conversation.id, messageId, agentId, agentVersion: live.version, channel })
      : undefined;
    // The message and its run are one statement; a channel change or a channel's own record joins them in a transaction.
    // A customer writing while a person holds the conversation: the inbox flags it unread until a teammate opens it.
    const flagsUnread = input.role === 'customer' && conversation.status === 'handed_off';
    // The visitor answers the widget's proactive message: it becomes the opening turn, just before the answer.
    const opening = input.role === 'customer' ? input.answersProactive : undefined;
    const write = async (tx: Kysely<DB> | Transaction<DB>) => {
      // The conversation's channel is the one its customer last wrote on (a thread moving between channels).
      if (input.role === 'customer' && channel !== conversation.channel) await this.repo.setChannel(tx, conversation.id, channel);
      if (flagsUnread) await this.repo.setUnread(tx, conversation.id, true);
      if (opening) await this.turns.writeProactiveTurn(tx as Transaction<DB>, conversation, channel, opening.content);
      const m = runRow ? await this.repo.insertMessageWithRun(tx, messageRow, runRow) : { message: await this.repo.insertMessage(tx, messageRow), run: undefined };
      // Posted before under this id (a redelivered inbound message): nothing new.
      if (!m?.message) return undefined;
      insertedRun = m.run;
      // A channel's record comes with a transaction (below): `tx` is one then.
      if (input.recordWithMessage) await input.recordWithMessage(tx as Transaction<DB>, { conversationId: conversation.id, messageId });
      return m.message;
    };
    const alone = !input.recordWithMessage && !flagsUnread && !opening && !(input.role === 'customer' && channel !== conversation.channel);
    const inserted = alone ? await write(db) : await db.transaction().execute(write);
    const message = inserted ?? (await this.repo.getMessage(db, messageId))!;
    const object = toConversationMessageObject(message, conversation.metadata);
    // A replayed post starts its run only if the first attempt stopped before the workflow started it.
    const startsRun = live && runId && message.run_id === runId && (inserted || (await this.runs.getRun(db, runId))?.status === 'queued');
    const emitted = this.deps.events.emit({ ...scopeOf(input), type: 'conversation.message', data: object, eventId: derivedId(IdPrefix.event, message.id, 'conversation.message') });
    if (!startsRun || !live || !runId) {
      await emitted;
      // Nothing is ever delivered from an evaluation's conversation.
      if (inserted && input.role === 'human' && channel !== 'chat' && conversation.pinned_agent_version === null) await this.turns.deliverHumanReply(conversation, object);
      return object;
    }
    // The run starts while its message's event is stored: neither waits for the other.
    await Promise.all([
      emitted,
      this.deps.workflows.start(agentRunWorkflowContract, {
        workflowId: agentRunWorkflowId(runId),
        input: {
          runId,
          planner: this.deps.config.planner.provider === 'local' ? 'local' : 'remote',
          approvalTimeoutSeconds: live.config.timeouts.approval_seconds,
          toolResultTimeoutSeconds: live.config.timeouts.tool_result_seconds,
        },
        memo: { accountId: input.accountId, conversationId: conversation.id, agentId: conversation.agent_id, agentVersion: live.version, messageId },
        eager: true,
      }),
    ]);
    const waitMs = input.waitMs ?? this.deps.config.runs.waitMsDefault;
    // No wait (an inbound SMS or email, a stream): the run as created, without reading it back.
    const run = waitMs <= 0 && insertedRun ? this.deps.runsService.presentNew(insertedRun, conversation.metadata) : await this.deps.runsService.waitForRun({ runId, waitMs, justStarted: insertedRun !== undefined });
    return { ...object, run };
  }

  /**
   * A customer message arriving on a channel (an inbound SMS, email or call turn): it continues the
   * customer's latest open conversation with this agent (matched by phone, email or customer id, whatever
   * channel it was on) or opens a new one, then is posted like an API customer message (a run starts).
   * `conversationId` skips the match when the channel already knows the thread (an email's References).
   */
  async receiveCustomerMessage(input: {
    accountId: string;
    livemode: boolean;
    /** null: an address or number with no agent attached; the conversation is the team's (handed_off, no run). */
    agentId: string | null;
    channel: ConversationChannel;
    customer: CustomerMatch & { name?: string; locale?: string };
    content: string;
    attachments?: string[];
    conversationId?: string;
    metadata?: Record<string, string>;
    waitMs?: number;
    /** The transcript message's id derived from the inbound message (idempotent redelivery). */
    messageId?: string;
    /** false: append to the transcript without a run (a customer who opted out of replies). */
    triggerRun?: boolean;
    recordWithMessage?: PostMessageInput['recordWithMessage'];
  }): Promise<{ conversation: ConversationObject; message: ConversationMessageObject & { run?: RunObject } }> {
    const match: CustomerMatch = { phone: input.customer.phone, email: input.customer.email, id: input.customer.id };
    const known = input.conversationId
      ? await this.repo.getConversationToPost(this.deps.db, scopeOf(input), input.conversationId)
      : await this.repo.findOpenConversationOfCustomer(this.deps.db, scopeOf(input), input.agentId, match);
    const customer = Object.fromEntries(Object.entries(input.customer).filter(([, v]) => v !== undefined));
    const opened =
      known && known.status !== 'closed'
        ? { row: known, live: undefined }
        : input.agentId === null
          ? { row: await this.openTeamConversation({ ...scopeOf(input), channel: input.channel, customer, metadata: input.metadata }), live: undefined }
          : await this.openConversation({ ...scopeOf(input), agent_id: input.agentId, channel: input.channel, customer, metadata: input.metadata });
    const conversation = toConversationObject(opened.row);
    // A plain yes to the resolution question after the agent's answer: a confirmed resolution, not a new question.
    const answered = opened.row === known && input.triggerRun !== false ? await this.turns.confirmedAnswerOf(known, input.channel, input.content) : undefined;
    const message = await this.post(opened.row, {
      ...scopeOf(input),
      conversationId: conversation.id,
      role: 'customer',
      content: input.content,
      attachments: input.attachments,
      channel: input.channel,
      messageId: input.messageId,
      trigger_run: answered ? false : input.triggerRun,
      waitMs: input.waitMs ?? 0,
      recordWithMessage: answered
        ? async (tx, m) => {
            await input.recordWithMessage?.(tx, m);
            await this.repo.insertConfirmation(tx, { id: derivedId(IdPrefix.feedback, m.messageId, 'confirmation'), account_id: input.accountId, livemode: input.livemode, conversation_id: m.conversationId, message_id: answered });
          }
        : input.recordWithMessage,
    }, opened.live);
    return { conversation, message };
  }

  /**
   * Writes an agent turn that a channel produced itself rather than a run's reply (a voice call's transfer
   * notice, spoken when the run handed off), so the transcript holds everything the customer heard.
   * Idempotent by `messageId` (derive it from what caused the turn); conversation.message as for any turn.
   */
  async appendAgentMessage(input: {
    accountId: string;
    livemode: boolean;
    conversationId: string;
    messageId: string;
    channel: ConversationChannel;
    content: string;
    runId: string | null;
    attachments?: string[];
  }): Promise<ConversationMessageObject> {
    const conversation = await this.getRow(scopeOf(input), input.conversationId);
    const written = await this.runOutcomes.writeAgentMessage(conversation, { ...input, content: redactText(input.content).text, attachments: input.attachments ?? [] });
    const row = written ?? (await this.repo.getMessage(this.deps.db, input.messageId));
    if (!row) throw notFound('message', input.messageId);
    return toConversationMessageObject(row, conversation.metadata);
  }

  /** One message of the account's conversations, by id (undefined when there is none in this scope). */
  async findMessage(input: Scope & { messageId: string }): Promise<ConversationMessageObject | undefined> {
    const row = await this.repo.getMessage(this.deps.db, input.messageId);
    if (!row || row.account_id !== input.accountId || row.livemode !== input.livemode) return undefined;
    const conversation = await this.repo.getConversation(this.deps.db, row.conversation_id);
    return toConversationMessageObject(row, conversation?.metadata ?? {});
  }

  /** A teammate opened the conversation: it is no longer unread (per-teammate unread comes with teammates). */
  async markRead(input: Scope & { conversationId: string }): Promise<void> {
    const row = await this.getRow(scopeOf(input), input.conversationId);
    if (row.unread) await this.repo.setUnread(this.deps.db, row.id, false);
  }

  async listMessages(input: Scope & { conversationId: string; page: PageParams; order?: 'asc' | 'desc' }) {
    const conversation = await this.getRow(scopeOf(input), input.conversationId);
    const result = await this.repo.listMessages(this.deps.db, scopeOf(input), conversation.id, input.page, input.order ?? 'asc');
    return { object: 'list' as const, data: result.data.map((m) => toConversationMessageObject(m, conversation.metadata)), has_more: result.has_more };
  }


  private async getRow(scope: Scope, conversationId: string): Promise<ConversationRow> {
    const row = await this.repo.getConversationById(this.deps.db, scope, conversationId);
    if (!row) throw notFound('conversation', conversationId);
    return row;
  }
}

const closedError = (id: string) => new AppError('conversation_closed', `Conversation ${id} is closed`, { param: 'id' });

export type { ConversationStatus };
