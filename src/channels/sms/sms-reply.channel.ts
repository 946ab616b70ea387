import type { ConversationRow } from '../../conversations/conversation.repo';
import { derivedId, IdPrefix } from '../../domain/ids';
import type { ShortLinksService } from '../../links/short-links.service';
import type { MessagesService } from '../../sms/messages.service';
import type { PhoneNumbersService } from '../../numbers/phone-numbers.service';
import type { Logger } from '../../observability/logger';
import type { ReplyChannel, ReplyToShape } from '../../conversations/reply-channels';
import { isE164 } from '../../domain/channels';
import { preferGsm7, shapeSmsReply } from './sms-reply-shaping';
import type { AccountsService } from '../../accounts/accounts.service';
import type { ConversationMessageObject } from '../../conversations/conversation.schemas';
import { signedSms, signerOf } from '../../conversations/human-signature';

/** The id of the SMS that carries a conversation message: one per message, whatever retries happen. */
export const smsOfConversationMessage = (conversationMessageId: string) => derivedId(IdPrefix.message, conversationMessageId, 'sms');

/**
 * The sms channel seen from a conversation: an agent's reply becomes plain text within the segment
 * budget with short links for its cited sources (shapeSmsReply), and a stored reply (the agent's, or a
 * human's from the desk) goes out through the messaging area like any SMS of the account, so routing,
 * consent, receipts, pricing and message.updated all apply.
 *
 * Addressing: to the conversation's `customer.phone`, from the account's number the customer last wrote
 * to among the numbers this agent answers (the oldest such number when the customer never wrote); a
 * conversation with no agent (the team's) answers from the numbers that have no agent attached.
 */
export class SmsReplyChannel implements ReplyChannel {
  readonly channel = 'sms' as const;

  constructor(
    private readonly deps: {
      messages: MessagesService;
      phoneNumbers: PhoneNumbersService;
      shortLinks: ShortLinksService;
      accounts: AccountsService;
      log: Logger;
    },
  ) {}

  /**
   * Cited sources become short links served by the service; in live mode while PUBLIC_BASE_URL is unset
   * or loopback (a short link would open on the service's machine only), the sources' own urls instead
   * (no click count), and the reply still goes.
   */
  async shapeReply(input: ReplyToShape): Promise<string> {
    const links: string[] = [];
    const shorten = this.deps.shortLinks.servesCustomerLinks(input.conversation.livemode);
    const urls = new Set(input.sources.map((s) => s.url).filter((u): u is string => typeof u === 'string' && /^https?:\/\//i.test(u)));
    for (const url of urls) {
      if (!shorten) {
        links.push(url);
        continue;
      }
      const link = await this.deps.shortLinks.createShortLink({ accountId: input.accountId, livemode: input.conversation.livemode, runId: input.runId, conversationId: input.conversation.id, url });
      links.push(link.shortUrl);
    }
    if (!shorten && urls.size > 0) {
      this.deps.log.warn({ runId: input.runId, conversationId: input.conversation.id }, 'SMS reply cites sources by their own urls: PUBLIC_BASE_URL is unset or loopback, so live replies carry no short links');
    }
    return shapeSmsReply({ text: input.text, links }).body;
  }

  /**
   * Hands the message to the messaging area under an id derived from the conversation message, so a
   * retried delivery stores and sends one SMS. An opted-out customer gets nothing: the reply stays in the
   * transcript and no SMS is created (the agent stays silent; retrying would change nothing). A
   * conversation without a phone or with no number for its agent cannot be answered by SMS: logged, not
   * retried.
   */
  async deliverReply(input: { conversation: ConversationRow; message: Pick<ConversationMessageObject, 'id' | 'content' | 'role' | 'author'>; runId: string | null }): Promise<void> {
    const { conversation, message } = input;
    const log = this.deps.log.child({ conversationId: conversation.id, messageId: message.id, runId: input.runId });
    const to = phoneOf(conversation);
    if (!to) {
      log.warn('SMS reply not sent: the conversation has no E.164 customer phone');
      return;
    }
    const from = await this.senderFor(conversation, to);
    if (!from) {
      log.warn({ agentId: conversation.agent_id }, 'SMS reply not sent: no phone number of the account has this agent attached');
      return;
    }
    // A person's reply ends with "— Dana" when the account turns it on (sign_sms_replies).
    const signer = signerOf(message);
    const signs = signer !== undefined && (await this.deps.accounts.getAccount({ accountId: conversation.account_id })).sign_sms_replies;
    const sms = await this.deps.messages.sendConversationReply({
      id: smsOfConversationMessage(message.id),
      accountId: conversation.account_id, livemode: conversation.livemode,
      to,
      from,
      // The service's own typography (a notice's or a signature's dash, a quoted passage's apostrophe) never costs a segment.
      body: preferGsm7(signedSms(message.content, signs ? signer : undefined)),
    });
    if (!sms) {
      log.info('SMS reply not sent: the customer opted out');
      return;
    }
    log.info({ smsId: sms.id, segments: sms.segments }, 'SMS reply handed to messaging');
  }

  private async senderFor(conversation: ConversationRow, customerPhone: string): Promise<string | undefined> {
    const numbers = (await this.deps.phoneNumbers.listNumbersOfAgent({ accountId: conversation.account_id, livemode: conversation.livemode, agentId: conversation.agent_id })).map((n) => n.number);
    if (numbers.length === 0) return undefined;
    const lastWritten = await this.deps.messages.findLatestInboundTo({ accountId: conversation.account_id, livemode: conversation.livemode, from: customerPhone, numbers });
    return lastWritten ?? numbers[0];
  }
}

function phoneOf(conversation: ConversationRow): string | undefined {
  const phone = (conversation.customer as Record<string, unknown> | null)?.phone;
  return typeof phone === 'string' && isE164(phone) ? phone : undefined;
}
