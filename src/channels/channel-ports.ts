import type { ConversationsService } from '../conversations/conversations.service';

export type { InboundChannelPort } from '../domain/channels';
export type { ReplyChannel } from '../conversations/reply-channels';

/**
 * What every channel adapter's inbound side posts to: a customer message arrives → its conversation
 * (continued or opened, a run started or not). ConversationsService is the implementation; the adapters
 * (sms, email, voice) see only this.
 */
export type ConversationInbox = Pick<ConversationsService, 'receiveCustomerMessage'>;
