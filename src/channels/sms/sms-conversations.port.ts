import type { ConversationsService } from '../../conversations/conversations.service';
import { derivedId, IdPrefix } from '../../domain/ids';
import { isAppError } from '../../domain/errors';
import type { CustomerMessagePort } from '../../messaging/inbound-sms.service';
import type { MessageObject } from '../../messaging/message.schemas';
import type { MessagesService } from '../../messaging/messages.service';
import type { Logger } from '../../observability/logger';

/**
 * Refusals that a redelivery of the same SMS would meet again: logged, the SMS stays stored. Anything
 * else (a conversation closed in between, the database away) is thrown, so the carrier redelivers.
 */
const SETTLED_REFUSALS = new Set(['agent_not_live', 'channel_not_supported', 'resource_missing']);

/**
 * Inbound SMS → conversations: a customer's SMS to a number with an agent (keywords never get here)
 * continues the customer's open conversation with that agent, matched by phone whatever channel it was
 * on, or opens an sms conversation, and starts a run; the reply goes out by SmsReplyChannel. The
 * transcript message's id derives from the SMS id, so a redelivered SMS posts once. A customer who
 * opted out of the number (or of the account) is written down without a run: the agent stays silent.
 */
export class SmsConversationsPort implements CustomerMessagePort {
  constructor(private readonly deps: { conversations: ConversationsService; messages: MessagesService; log: Logger }) {}

  async onCustomerMessage(input: { accountId: string; livemode: boolean; phoneNumberId: string; agentId: string; message: MessageObject }): Promise<void> {
    const { message } = input;
    const optedOut = await this.deps.messages.isOptedOut({ accountId: input.accountId, livemode: input.livemode, sender: message.to, recipient: message.from });
    try {
      await this.deps.conversations.receiveCustomerMessage({
        accountId: input.accountId,
        livemode: input.livemode,
        agentId: input.agentId,
        channel: 'sms',
        customer: { phone: message.from },
        content: message.body,
        messageId: derivedId(IdPrefix.message, message.id, 'conversation'),
        triggerRun: !optedOut,
      });
    } catch (err) {
      if (!isAppError(err) || !SETTLED_REFUSALS.has(err.code)) throw err;
      this.deps.log.warn({ code: err.code, agentId: input.agentId, phoneNumberId: input.phoneNumberId, smsId: message.id }, 'Inbound SMS not posted to a conversation');
    }
  }
}
