import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { ConversationChannel, MessageCitation } from '../db/tables/agents';
import type { RunConversationRow } from './run.repo';
import type { Handoff } from './run.schemas';
import type { AgentConfig } from '../agents/agent.schemas';

/** A passage the reply cites, in citation order. */
export interface RunReplySource {
  title: string;
  url: string | null;
  snippet: string;
  sourceId?: string;
  knowledgeBaseId?: string;
}

/**
 * What a run needs from the conversation it answers in, declared here and implemented by
 * ConversationsService (the only writer of conversation messages): runs sit below conversations and
 * reach them through this port only. The `tx` methods write in the run's finishing transaction, so the
 * run's completion, its reply, the handoff and their events commit together.
 */
export interface RunConversationsPort {
  /** The reply as the customer gets it on `channel` (shaped for sms, email, voice), with its attachments. */
  shapeRunReply(input: {
    channel: ConversationChannel;
    accountId: string;
    conversation: RunConversationRow;
    runId: string;
    /** The planner's reply, redacted. */
    text: string;
    sources: RunReplySource[];
    /** The version's locales and resolution question (SMS and email: a line asking whether it helped). */
    agent?: Pick<AgentConfig, 'locales' | 'resolution_question'>;
  }): Promise<{ content: string; attachments: string[] }>;
  /** Whether a finished run's reply still has to be sent on `channel` (sms, email; chat and voice answer in the turn). */
  sendsAfterRun(channel: ConversationChannel): boolean;
  /** Writes the run's reply as the agent's turn with the sources it cites, and its conversation.message event (idempotent by messageId). */
  appendRunReply(
    tx: Transaction<DB>,
    input: { conversation: RunConversationRow; messageId: string; runId: string; channel: ConversationChannel; content: string; attachments: string[]; citations: MessageCitation[] },
  ): Promise<void>;
  /**
   * Hands the conversation to a human (handed_off, conversation.handoff, unread), unless it was closed
   * meanwhile, and writes the customer's handoff notice (a `system` message with id `noticeMessageId`,
   * never an agent answer) on channels that take one (not voice: its transfer is spoken). True when a
   * notice was written (or had been): the run then delivers it (deliverRunReply with that id).
   */
  handOff(
    tx: Transaction<DB>,
    input: { conversation: RunConversationRow; runId: string; handoff: Handoff; channel: ConversationChannel; noticeMessageId: string; agent: Pick<AgentConfig, 'locales' | 'handoff'> },
  ): Promise<boolean>;
  /**
   * Appends an event about the run's reply to the conversation's stream: `reply.delta` ({run_id, text},
   * redacted) while the planner streams, `reply.retracted` ({run_id, reason}) when what was streamed is
   * withdrawn. In `db` (a finishing transaction commits it with the reply). `live`: a delta written on its
   * own as the planner streams, committed without waiting for the disk (the finishing transaction makes it
   * durable); it then costs a token well under a millisecond instead of a WAL flush.
   */
  appendReplyEvent(db: Kysely<DB> | Transaction<DB>, input: { conversationId: string; type: 'reply.delta' | 'reply.retracted'; data: Record<string, unknown> & { run_id: string }; live?: boolean }): Promise<void>;
  /** The text streamed as the run's reply since its last retraction (the deltas joined). */
  streamedReply(db: Kysely<DB> | Transaction<DB>, input: { conversationId: string; runId: string }): Promise<string>;
  /** Sends a finished run's stored reply (or handoff notice) on its channel (idempotent: each channel keys its send by the message id). */
  deliverRunReply(input: { conversationId: string; messageId: string; runId: string; channel: ConversationChannel }): Promise<void>;
}
