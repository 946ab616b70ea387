import type { Kysely, Transaction } from 'kysely';
import type { AgentsService, AgentVersion } from '../agents/agents.service';
import type { DB } from '../db/schema';
import type { ConversationChannel } from '../db/tables/agents';
import { derivedId, IdPrefix } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import { redactText } from '../privacy/redaction';
import type { EventsService } from '../webhooks/events.service';
import type { Logger } from '../observability/logger';
import type { ConversationRepo, ConversationRow, ConversationToPost } from './conversation.repo';
import { toConversationMessageObject, type ConversationMessageObject } from './conversation.schemas';
import type { ReplyChannels } from './reply-channels';
import { isConfirmation, ownReplyText, RESOLUTION_QUESTION_CHANNELS } from './resolution-question';

/**
 * What a customer message of a conversation is read against before it is posted (ConversationsService):
 * the agent version its run uses, whether it is the yes to the resolution question, and the widget's
 * proactive message it answers; and a human's reply sent on the conversation's channel once stored.
 */
export class ConversationTurns {
  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService; events: EventsService; repo: ConversationRepo; channels: ReplyChannels; log: Logger }) {}

  /**
   * The agent answer a customer's reply confirms: the reply is a plain yes (isConfirmation) on SMS or email, the
   * conversation is with its agent (not handed off), its latest message is the agent's answer, and the agent's
   * version asks the resolution question. Undefined otherwise (the reply is a new question for the agent).
   */
  async confirmedAnswerOf(conversation: ConversationToPost, channel: ConversationChannel, content: string): Promise<string | undefined> {
    if (conversation.status !== 'active' || conversation.agent_id === null || conversation.test || conversation.pinned_agent_version !== null) return undefined;
    if (conversation.agent_live_version === null || !RESOLUTION_QUESTION_CHANNELS.includes(channel) || !isConfirmation(channel === 'email' ? ownReplyText(content) : content)) return undefined;
    const latest = await this.deps.repo.latestMessage(this.deps.db, conversation.id);
    if (latest?.role !== 'agent') return undefined;
    const version = await this.runVersionOf({ ...conversation, agent_id: conversation.agent_id }, scopeOf({ accountId: conversation.account_id, livemode: conversation.livemode }));
    return version.config.resolution_question?.enabled ? latest.id : undefined;
  }

  /** The version a run of the conversation uses, from the live version read with it when it has one. */
  runVersionOf(conversation: ConversationToPost & { agent_id: string }, scope: Scope): Promise<AgentVersion> {
    if (conversation.pinned_agent_version !== null) return this.deps.agents.getVersion({ agentId: conversation.agent_id, version: conversation.pinned_agent_version });
    if (!conversation.test && conversation.agent_live_version !== null) return this.deps.agents.getVersion({ agentId: conversation.agent_id, version: conversation.agent_live_version });
    return this.versionFor({ ...scope, agentId: conversation.agent_id, test: conversation.test });
  }

  /** The version a run of this conversation uses: the live one, or a snapshot of the draft in a test chat. */
  versionFor(input: Scope & { agentId: string; test: boolean }) {
    return input.test ? this.deps.agents.snapshotDraft({ ...scopeOf(input), agentId: input.agentId }) : this.deps.agents.getLiveVersion(input);
  }

  /**
   * The widget's proactive message, answered: stored as the conversation's opening `system` turn (once per
   * conversation: its id derives from the conversation's; not when the conversation has a message already),
   * with its conversation.message event, in the answer's transaction.
   */
  async writeProactiveTurn(tx: Transaction<DB>, conversation: ConversationToPost, channel: ConversationChannel, content: string) {
    const row = await this.deps.repo.insertOpeningMessage(tx, {
      id: derivedId(IdPrefix.message, conversation.id, 'proactive'),
      account_id: conversation.account_id,
      livemode: conversation.livemode,
      conversation_id: conversation.id,
      channel,
      content: redactText(content).text,
      kind: 'proactive',
    });
    if (!row) return;
    const object = toConversationMessageObject(row, conversation.metadata);
    await this.deps.events.emit(
      { accountId: conversation.account_id, livemode: conversation.livemode, type: 'conversation.message', data: object, eventId: derivedId(IdPrefix.event, row.id, 'conversation.message') },
      { tx },
    );
  }

  /**
   * Sends a human's desk reply on the conversation's channel, once the message is stored: one attempt
   * in the request (the channel adapter hands it to a durable pipeline, e.g. the SMS delivery workflow,
   * under an id derived from the message, so a repeat sends nothing twice). If that hand-over fails, the
   * message stays in the transcript unsent and the failure is logged; the API call still succeeds
   * (failing it would invite a retry that posts the message twice).
   */
  async deliverHumanReply(conversation: ConversationRow, message: ConversationMessageObject) {
    try {
      await this.deps.channels.deliverReply(message.channel, { conversation, message, runId: null });
    } catch (err) {
      this.deps.log.error({ err, conversationId: conversation.id, messageId: message.id, channel: message.channel }, 'Human reply not handed to its channel');
    }
  }
}
