import { derivedId, IdPrefix } from '../../domain/ids';
import type { InboundChannelPort } from '../../domain/channels';
import { isAppError } from '../../domain/errors';
import type { CustomerSms } from '../../sms/inbound-sms.service';
import type { Logger } from '../../observability/logger';
import type { ConversationInbox } from '../channel-ports';

/**
 * Refusals that a redelivery of the same SMS would meet again: logged, the SMS stays stored. Anything
 * else (a conversation closed in between, the database away) is thrown, so the carrier redelivers.
 */
const SETTLED_REFUSALS = new Set(['agent_not_live', 'channel_not_supported', 'resource_missing']);

/**
 * The sms channel's inbound side. The SMS area stores an inbound SMS, applies consent keywords and looks
 * up the customer's consent (once); a customer's SMS to a number with an agent (keywords never get here)
 * then comes here and continues the customer's open conversation with that agent, matched by phone
 * whatever channel it was on, or opens an sms conversation, and starts a run; the reply goes out by
 * SmsReplyChannel. The transcript message's id derives from the SMS id, so a redelivered SMS posts once.
 * A customer who opted out of the number (or of the account) is written down without a run: the agent
 * stays silent. A number with no agent attached delivers into the team's inbox: the customer's open
 * conversation without an agent, or a new one (handed_off, unread), and a teammate's reply goes out by SMS.
 */
export class SmsInboundAdapter implements InboundChannelPort<CustomerSms> {
  readonly channel = 'sms' as const;

  constructor(private readonly deps: { conversations: ConversationInbox; log: Logger }) {}

  async receiveInbound(input: CustomerSms): Promise<void> {
    const { message } = input;
    try {
      await this.deps.conversations.receiveCustomerMessage({
        accountId: input.accountId,
        livemode: input.livemode,
        agentId: input.agentId,
        channel: 'sms',
        customer: { phone: message.from },
        content: message.body,
        messageId: derivedId(IdPrefix.message, message.id, 'conversation'),
        triggerRun: !input.customerOptedOut,
      });
    } catch (err) {
      if (!isAppError(err) || !SETTLED_REFUSALS.has(err.code)) throw err;
      this.deps.log.warn({ code: err.code, agentId: input.agentId, phoneNumberId: input.phoneNumberId, smsId: message.id }, 'Inbound SMS not posted to a conversation');
    }
  }
}
