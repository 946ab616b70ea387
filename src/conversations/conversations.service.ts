import type { Kysely, Transaction } from 'kysely';
import type { AgentsService } from '../agents/agents.service';
import { redactDeep, redactText } from '../agents/guardrails/redaction';
import type { Config } from '../config/env';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import type { ConversationChannel, ConversationStatus } from '../db/tables/agents';
import { AppError, notFound } from '../domain/errors';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import { RunRepo } from '../runs/run.repo';
import type { RunObject } from '../runs/run.schemas';
import type { RunsService } from '../runs/runs.service';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService } from '../webhooks/events.service';
import { agentRunWorkflowContract, agentRunWorkflowId } from '../../workflows/shared/runs.contracts';
import { ConversationRepo, type ConversationListFilter, type ConversationRow } from './conversation.repo';
import {
  toConversationMessageObject,
  toConversationObject,
  type ConversationMessageObject,
  type ConversationObject,
} from './conversation.schemas';

export interface CreateConversationInput {
  accountId: string;
  agent_id: string;
  channel?: ConversationChannel;
  customer?: Record<string, string | undefined>;
  context?: Record<string, unknown>;
  tags?: string[];
  metadata?: Record<string, string>;
}

export interface PostMessageInput {
  accountId: string;
  conversationId: string;
  role: 'customer' | 'human';
  content: string;
  attachments?: string[];
  trigger_run?: boolean;
  /** The channel the message came in on (a channel adapter's inbound); defaults to the conversation's. */
  channel?: ConversationChannel;
  /**
   * A channel adapter's own record of the message (an inbound email's headers), written in the message's
   * transaction, so it exists before the run starts (the reply threads under it) and a failure stores
   * neither.
   */
  recordWithMessage?: (tx: Transaction<DB>, message: { conversationId: string; messageId: string }) => Promise<void>;
}

/** How a channel adapter recognises a returning customer: the same phone, email or customer id. */
export interface CustomerMatch {
  phone?: string;
  email?: string;
  id?: string;
}

/**
 * Conversations and their transcripts. A customer message starts a run (a workflow per run; runs of a
 * conversation answer in order, see RunStepsService.startRun). Customer text is redacted before it is
 * stored, so card numbers and national ids reach no table, log, webhook or workflow history.
 */
export class ConversationsService {
  private readonly repo = new ConversationRepo();
  private readonly runs = new RunRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      agents: AgentsService;
      events: EventsService;
      workflows: WorkflowGateway;
      runsService: RunsService;
      config: Config;
    },
  ) {}

  get conversationRepo() {
    return this.repo;
  }

  async createConversation(input: CreateConversationInput): Promise<ConversationObject> {
    const live = await this.deps.agents.getLiveVersion({ accountId: input.accountId, agentId: input.agent_id });
    const channel = input.channel ?? 'chat';
    if (!live.config.channels.includes(channel)) {
      throw new AppError('channel_not_supported', `Agent ${input.agent_id} is not configured for the ${channel} channel (it has ${live.config.channels.join(', ')})`, { param: 'channel' });
    }
    const row = await this.repo.insertConversation(this.deps.db, {
      id: newId(IdPrefix.conversation),
      account_id: input.accountId,
      agent_id: input.agent_id,
      channel,
      status: 'active',
      customer: JSON.stringify(redactDeep(input.customer ?? {})),
      context: JSON.stringify(redactDeep(input.context ?? {})),
      tags: JSON.stringify(input.tags ?? []),
      metadata: JSON.stringify(input.metadata ?? {}),
      handoff: null,
      closed_at: null,
    });
    return toConversationObject(row);
  }

  async getConversation(input: { accountId: string; conversationId: string }): Promise<ConversationObject> {
    return toConversationObject(await this.getRow(input.accountId, input.conversationId));
  }

  async listConversations(input: { accountId: string; page: PageParams } & ConversationListFilter) {
    const { accountId, page, ...filter } = input;
    const result = await this.repo.listConversations(this.deps.db, accountId, page, filter);
    return { object: 'list' as const, data: result.data.map(toConversationObject), has_more: result.has_more };
  }

  /** Resolves and closes the conversation (conversation.closed); later posts are 409 conversation_closed. */
  async closeConversation(input: { accountId: string; conversationId: string }): Promise<ConversationObject> {
    const current = await this.getRow(input.accountId, input.conversationId);
    if (current.status === 'closed') return toConversationObject(current);
    const row = (await this.repo.setStatus(this.deps.db, current.id, 'closed', { closed_at: new Date(), handoff: null })) ?? (await this.getRow(input.accountId, current.id));
    const object = toConversationObject(row);
    await this.deps.events.emit({ accountId: row.account_id, type: 'conversation.closed', data: object, eventId: derivedId(IdPrefix.event, row.id, 'conversation.closed') });
    return object;
  }

  /** Closes the open handoff with a note: control returns to the agent (status back to active). */
  async closeHandoff(input: { accountId: string; conversationId: string; note: string }): Promise<ConversationObject> {
    const current = await this.getRow(input.accountId, input.conversationId);
    if (current.status === 'closed') throw closedError(current.id);
    if (current.status !== 'handed_off') throw new AppError('resource_conflict', `Conversation ${current.id} has no open handoff`, { param: 'id' });
    const row = (await this.repo.setStatus(this.deps.db, current.id, 'active', { handoff: null }))!;
    await this.deps.events.emit({
      accountId: row.account_id,
      type: 'conversation.handoff.closed',
      data: { ...toConversationObject(row), note: redactText(input.note).text, previous_handoff: current.handoff },
    });
    return toConversationObject(row);
  }

  /**
   * Appends a message. A customer message (trigger_run, default true) starts a run unless a human holds
   * the conversation (handed_off: the desk answers); a human message never does. With a run, the response
   * carries it as it stands after `waitMs` (settled sooner when it completes or requires action).
   */
  async postMessage(input: PostMessageInput & { waitMs?: number }): Promise<ConversationMessageObject & { run?: RunObject }> {
    const { db } = this.deps;
    const conversation = await this.getRow(input.accountId, input.conversationId);
    if (conversation.status === 'closed') throw closedError(conversation.id);
    const triggers = input.role === 'customer' && (input.trigger_run ?? true) && conversation.status === 'active';
    const live = triggers ? await this.deps.agents.getLiveVersion({ accountId: input.accountId, agentId: conversation.agent_id }) : undefined;
    const messageId = newId(IdPrefix.message);
    const runId = live ? newId(IdPrefix.run) : null;
    const channel = input.channel ?? conversation.channel;
    const message = await db.transaction().execute(async (tx) => {
      // The conversation's channel is the one its customer last wrote on (a thread moving between channels).
      if (input.role === 'customer' && channel !== conversation.channel) await this.repo.setChannel(tx, conversation.id, channel);
      const m = await this.repo.insertMessage(tx, {
        id: messageId,
        account_id: input.accountId,
        conversation_id: conversation.id,
        role: input.role,
        channel,
        content: redactText(input.content).text,
        attachments: JSON.stringify(input.attachments ?? []),
        run_id: runId,
      });
      if (input.recordWithMessage) await input.recordWithMessage(tx, { conversationId: conversation.id, messageId });
      if (live && runId) {
        await this.runs.insertRun(tx, {
          id: runId,
          account_id: input.accountId,
          conversation_id: conversation.id,
          message_id: messageId,
          agent_id: conversation.agent_id,
          agent_version: live.version,
          channel,
          status: 'queued',
          confidence: null,
          retrieval: JSON.stringify([]),
          decision: null,
          reply: null,
          handoff: null,
          usage: JSON.stringify({ input_tokens: 0, output_tokens: 0 }),
          error: null,
          guardrail_notes: JSON.stringify([]),
          required_action: null,
          reply_message_id: null,
          started_at: null,
          completed_at: null,
        });
      }
      return m!;
    });
    const object = toConversationMessageObject(message, conversation.metadata);
    await this.deps.events.emit({ accountId: input.accountId, type: 'conversation.message', data: object, eventId: derivedId(IdPrefix.event, message.id, 'conversation.message') });
    if (!live || !runId) return object;

    await this.deps.workflows.start(agentRunWorkflowContract, {
      workflowId: agentRunWorkflowId(runId),
      input: {
        runId,
        planner: this.deps.config.planner.provider === 'local' ? 'local' : 'remote',
        approvalTimeoutSeconds: live.config.timeouts.approval_seconds,
        toolResultTimeoutSeconds: live.config.timeouts.tool_result_seconds,
      },
      memo: { accountId: input.accountId, conversationId: conversation.id, agentId: conversation.agent_id, agentVersion: live.version, messageId },
      eager: true,
    });
    const run = await this.deps.runsService.waitForRun({ runId, waitMs: input.waitMs ?? this.deps.config.runs.waitMsDefault });
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
    agentId: string;
    channel: ConversationChannel;
    customer: CustomerMatch & { name?: string; locale?: string };
    content: string;
    attachments?: string[];
    conversationId?: string;
    metadata?: Record<string, string>;
    waitMs?: number;
    recordWithMessage?: PostMessageInput['recordWithMessage'];
  }): Promise<{ conversation: ConversationObject; message: ConversationMessageObject & { run?: RunObject } }> {
    const match: CustomerMatch = { phone: input.customer.phone, email: input.customer.email, id: input.customer.id };
    const known = input.conversationId
      ? await this.repo.getConversationById(this.deps.db, input.accountId, input.conversationId)
      : await this.repo.findOpenConversationOfCustomer(this.deps.db, input.accountId, input.agentId, match);
    const conversation =
      known && known.status !== 'closed'
        ? toConversationObject(known)
        : await this.createConversation({
            accountId: input.accountId,
            agent_id: input.agentId,
            channel: input.channel,
            customer: Object.fromEntries(Object.entries(input.customer).filter(([, v]) => v !== undefined)),
            metadata: input.metadata,
          });
    const message = await this.postMessage({
      accountId: input.accountId,
      conversationId: conversation.id,
      role: 'customer',
      content: input.content,
      attachments: input.attachments,
      channel: input.channel,
      waitMs: input.waitMs ?? 0,
      recordWithMessage: input.recordWithMessage,
    });
    return { conversation, message };
  }

  async listMessages(input: { accountId: string; conversationId: string; page: PageParams; order?: 'asc' | 'desc' }) {
    const conversation = await this.getRow(input.accountId, input.conversationId);
    const result = await this.repo.listMessages(this.deps.db, input.accountId, conversation.id, input.page, input.order ?? 'asc');
    return { object: 'list' as const, data: result.data.map((m) => toConversationMessageObject(m, conversation.metadata)), has_more: result.has_more };
  }

  private async getRow(accountId: string, conversationId: string): Promise<ConversationRow> {
    const row = await this.repo.getConversationById(this.deps.db, accountId, conversationId);
    if (!row) throw notFound('conversation', conversationId);
    return row;
  }
}

const closedError = (id: string) => new AppError('conversation_closed', `Conversation ${id} is closed`, { param: 'id' });

export type { ConversationStatus };
