import type { ConversationRow } from './conversation.repo';
import type { ConversationMessageObject } from './conversation.schemas';
import type { ConversationChannel } from '../db/tables/agents';

/** A source the reply cites (the run's retrieval items marked cited), in citation order. */
export interface CitedSource {
  title: string;
  url: string | null;
  snippet: string;
  /** The passage's source (src_…) and knowledge base (kb_…). */
  sourceId?: string;
  knowledgeBaseId?: string;
}

export interface ReplyToShape {
  accountId: string;
  conversation: ConversationRow;
  runId: string;
  /** The agent's reply as the planner wrote it (may hold markdown and [n] citation marks), redacted. */
  text: string;
  sources: CitedSource[];
}

/**
 * One channel's adapter, seen from a run: how a reply reads on the channel (shaped before it is stored,
 * so the transcript holds what the customer got) and how it is sent once the run has committed it.
 * Each channel lives in `src/channels/<channel>`; inbound parsing is the adapter's own entry point
 * (a carrier listener, an inbound hook, a voice webhook) which posts the customer message through
 * ConversationsService.receiveCustomerMessage.
 */
export interface ReplyChannel {
  readonly channel: ConversationChannel;
  /**
   * The reply goes back in the request that brought the customer's message (chat's API response, voice's
   * TwiML): the run has no delivery step. Otherwise the run's deliverReply activity sends it.
   */
  readonly repliesInTurn?: boolean;
  shapeReply(input: ReplyToShape): Promise<string>;
  /**
   * URLs stored as the reply message's attachments (optional; none by default). Voice attaches the sources
   * the spoken reply used, since it reads no link out: the transcript shows each turn with its sources.
   */
  replyAttachments?(input: ReplyToShape): string[];
  /**
   * Sends the stored reply on the channel; idempotent by the message id (a retried run step calls it
   * again). `runId` is null for a human's desk reply (ConversationsService.postMessage with role human).
   */
  deliverReply(input: { conversation: ConversationRow; message: ConversationMessageObject; runId: string | null }): Promise<void>;
}

/** chat: the reply is returned in the API response and streamed; nothing to send. */
export const chatReplyChannel: ReplyChannel = {
  channel: 'chat',
  repliesInTurn: true,
  shapeReply: async ({ text }) => text,
  deliverReply: async () => undefined,
};

/**
 * The channels a run can answer on, by name. A reply goes out on the channel its customer message came
 * in on (the run's channel); a channel with no adapter behaves like chat (returned and streamed only).
 */
export class ReplyChannels {
  private readonly byName = new Map<ConversationChannel, ReplyChannel>();

  constructor(channels: ReplyChannel[] = []) {
    for (const c of [chatReplyChannel, ...channels]) this.register(c);
  }

  register(channel: ReplyChannel): void {
    this.byName.set(channel.channel, channel);
  }

  private adapter(channel: ConversationChannel): ReplyChannel {
    return this.byName.get(channel) ?? chatReplyChannel;
  }

  /** Whether a finished run's reply on this channel still has to be sent (a deliverReply step). */
  sendsAfterRun(channel: ConversationChannel): boolean {
    return this.adapter(channel).repliesInTurn !== true;
  }

  shapeReply(channel: ConversationChannel, input: ReplyToShape): Promise<string> {
    return this.adapter(channel).shapeReply(input);
  }

  replyAttachments(channel: ConversationChannel, input: ReplyToShape): string[] {
    return this.adapter(channel).replyAttachments?.(input) ?? [];
  }

  deliverReply(channel: ConversationChannel, input: { conversation: ConversationRow; message: ConversationMessageObject; runId: string | null }): Promise<void> {
    return this.adapter(channel).deliverReply(input);
  }
}
