import type { Kysely } from 'kysely';
import { countryOf } from '../domain/phone-addresses';
import type { CarrierListener, DeliveryReceipt, InboundSms, SmsCarriers } from './carrier';
import { classifyKeyword, OPT_IN_REPLY, OPT_OUT_REPLY } from './consent-keywords';
import { segmentSms } from './segmenter';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import { withRetries } from '../db/with-retries';
import type { InboundChannelPort } from '../domain/channels';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import type { PhoneNumbersService } from '../numbers/phone-numbers.service';
import type { SendersService } from '../numbers/senders.service';
import type { Logger } from '../observability/logger';
import { redactText } from '../privacy/redaction';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService } from '../webhooks/events.service';
import { deliveryReceiptSignal, smsDeliveryWorkflowId } from '../../workflows/shared/sms.contracts';
import type { MessageDeliveryService } from './message-delivery.service';
import type { MessageRoundSender } from './message-round.service';
import { MessageRepo } from './message.repo';
import { toMessageObject, type MessageObject } from './message.schemas';
import { hasOwnWorkflow, type MessagesService } from './messages.service';

/** Tries of a delivery receipt's store and fold before the carrier is answered with a failure (0.5 s, 1 s, 2 s apart). */
const RECEIPT_RETRIES = { tries: 4, firstDelayMs: 500 };

/**
 * A customer's inbound SMS to a number of the account (with an agent, or without one: the team's inbox), once the SMS area has stored it, found no consent
 * keyword in it and looked up the customer's consent: what the sms channel adapter's inbound port
 * (InboundChannelPort, src/domain/channels.ts) receives.
 */
export interface CustomerSms {
  accountId: string;
  livemode: boolean;
  phoneNumberId: string;
  /** null: the number has no agent attached; the message goes to the team's inbox. */
  agentId: string | null;
  message: MessageObject;
  /** The customer opted out of the number (or of the account): posted without a run. */
  customerOptedOut: boolean;
}

/** No agent wiring: inbound messages are stored and emitted only. */
export const noCustomerSmsAdapter: InboundChannelPort<CustomerSms> = { channel: 'sms', receiveInbound: async () => undefined };

/**
 * The carriers' listener (worker process): delivery receipts and inbound SMS. Receipts are stored and
 * folded into their message; inbound messages are stored, consent keywords (STOP/START/HELP) applied and
 * answered, message.received emitted, and a customer message handed to the sms channel adapter.
 */
export class InboundSmsService implements CarrierListener {
  private readonly repo = new MessageRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: WorkflowGateway;
      events: EventsService;
      phoneNumbers: PhoneNumbersService;
      senders: SendersService;
      messages: MessagesService;
      delivery: MessageDeliveryService;
      /** Batch rounds: a receipt for a submit in flight in one of them is folded by its record. */
      rounds?: Pick<MessageRoundSender, 'isInFlight'>;
      /** The sms channel adapter's inbound port (a customer message to a number of the account, with an agent or not). */
      customerSms: InboundChannelPort<CustomerSms>;
      carriers?: SmsCarriers;
      config: Config;
      log: Logger;
    },
  ) {}

  /** Starts the carriers (worker process only) with this service as their listener. */
  async startCarriers(): Promise<void> {
    await this.deps.carriers?.start?.(this);
  }

  async stopCarriers(): Promise<void> {
    await this.deps.carriers?.stop?.();
  }

  /**
   * A delivery receipt: stored first (keyed by carrier and carrier message id), then folded into its
   * message by the delivery workflow. A receipt for a message whose submit is not recorded yet waits
   * in the table; recording the submit picks it up.
   *
   * Race-free by a re-check after commit: the storing statement cannot see a submit that commits while
   * it runs, and that submit's own look-up may run before this receipt commits. So when the first
   * statement finds no message, the part is looked up again once the receipt is committed: either the
   * submit's look-up saw the receipt, or this second look-up sees the submit.
   */
  async onReceipt(receipt: DeliveryReceipt): Promise<void> {
    // Every step is idempotent (the store an upsert, the fold forward only): a failure (the database busy
    // for a moment) is tried again here before the carrier is told to redeliver, which not every SMSC does.
    await withRetries(() => this.applyReceipt(receipt), RECEIPT_RETRIES);
  }

  private async applyReceipt(receipt: DeliveryReceipt): Promise<void> {
    const { db, workflows } = this.deps;
    const stored = await this.repo.storeReceipt(db, {
      carrier: receipt.carrier,
      carrier_message_id: receipt.carrierMessageId,
      status: receipt.status,
      carrier_error_code: receipt.carrierErrorCode ?? null,
      received_at: receipt.at,
      handset: receipt.handset ?? null,
    });
    const m =
      stored?.message ??
      (await this.repo.findMessageOfPart(db, receipt.carrier, receipt.carrierMessageId)) ??
      // A receipt for a submit whose answer never came (we never learnt its id): it was accepted. Not
      // while a batch round in this process has a submit to that handset in flight: its answer is on the
      // way, and the round reads the stored receipts after recording it.
      (receipt.handset && this.deps.rounds?.isInFlight(receipt.handset) ? undefined : await this.deps.delivery.adoptUncertainSubmit(receipt));
    if (!m) return;
    // A message with a workflow of its own is waiting for this signal; a batched one (or one whose
    // workflow stopped waiting at the receipt timeout) has its receipts folded in here. Either way a
    // late receipt still moves `sent` forward, never back.
    const signaled = hasOwnWorkflow(m) && (await workflows.signalIfRunning(smsDeliveryWorkflowId(m.id), deliveryReceiptSignal));
    // The storing statement read the receipts of the message already: for a one-part message (this
    // receipt is all there is) folding them in needs no second read. A concatenated message's parts may
    // report concurrently, so it reads them again once this receipt is committed.
    const onePart = stored !== undefined && Array.isArray(stored.message.carrier_message_ids) && stored.message.carrier_message_ids.length === 1;
    if (!signaled) await this.deps.delivery.applyReceipts({ messageId: m.id }, m, { receipts: onePart ? stored.receipts : undefined, foldOnly: true });
  }

  /**
   * An inbound SMS: stored as an inbound message of the account owning the number (or that last wrote
   * to this sender from this sender ID / short code), consent keywords applied, message.received
   * emitted. Idempotent per carrier message id (a redelivered deliver_sm changes nothing).
   *
   * Every carrier's inbound SMS (SMPP deliver_sm, the sandbox, the test helper) comes through here, and its
   * text is redacted first (src/privacy), like every customer message: the stored body, the API object,
   * message.received and its webhooks, the consent keyword check and the agent's conversation all read the
   * redacted text. Segments and encoding still describe the text the carrier delivered.
   */
  async onInbound(received: InboundSms): Promise<void> {
    const { db, log } = this.deps;
    const sms: InboundSms = { ...received, body: redactText(received.body).text };
    const number = await this.deps.phoneNumbers.findNumber({ number: sms.to });
    // Only the sender's owner hears from it: the number's account, or the account the sender ID or short
    // code is registered to. Nobody else, even an account that once wrote from it.
    const owner = number ? { accountId: number.account_id, livemode: number.livemode } : await this.deps.senders.findSenderOwner({ sender: sms.to });
    if (!owner) {
      await this.onInboundToUnownedSender(sms);
      return;
    }
    // The message takes the mode of the number (or sender) it reached. A test-mode number is reached
    // through a sandbox only, a live one through real carriers only: anything else is not its traffic.
    if (owner.livemode === Boolean(sms.sandbox)) {
      log.warn({ carrier: sms.carrier, to: sms.to, livemode: owner.livemode }, 'Inbound SMS from a carrier of the other mode dropped');
      return;
    }
    const { accountId, livemode } = owner;
    const id = sms.carrierMessageId
      ? derivedId(IdPrefix.message, 'inbound', sms.carrier, sms.carrierMessageId)
      : newId(IdPrefix.message);
    const segmented = segmentSms(received.body);
    const { events } = this.deps;
    // The message and its message.received commit together; a redelivered deliver_sm changes neither.
    const row = await events.transaction(async (tx) => {
      await this.repo.insertMessage(tx, {
        id,
        account_id: accountId,
        livemode,
        direction: 'inbound',
        type: 'transactional',
        origin: 'api',
        to: sms.to,
        from: sms.from,
        body: sms.body,
        status: 'received',
        segments: segmented.segments,
        encoding: segmented.encoding,
        country: countryOf(sms.from),
        price: null,
        price_currency: null,
        error_code: null,
        error_message: null,
        reference: null,
        status_callback: null,
        send_at: null,
        held_until: null,
        carrier: sms.carrier,
        carrier_message_ids: sms.carrierMessageId ? JSON.stringify([sms.carrierMessageId]) : null,
        created_at: sms.receivedAt,
      });
      const stored = (await this.repo.getMessage(tx, id))!;
      await events.emit(
        { accountId, livemode, type: 'message.received', data: toMessageObject(stored), eventId: derivedId(IdPrefix.event, id, 'message.received') },
        { tx },
      );
      return stored;
    });
    const message = toMessageObject(row);

    const keyword = classifyKeyword(sms.body);
    if (keyword) {
      const sender = sms.to;
      const recipient = sms.from;
      let reply: string;
      if (keyword.action === 'opt_out' || keyword.action === 'opt_out_all') {
        const scope = keyword.action === 'opt_out_all' ? '*' : sender;
        await this.repo.setConsent(db, { account_id: accountId, livemode, sender: scope, recipient, opted_out: true, keyword: keyword.keyword });
        reply = OPT_OUT_REPLY;
      } else if (keyword.action === 'opt_in') {
        await this.repo.clearConsent(db, owner, sender, recipient);
        await this.repo.clearConsent(db, owner, '*', recipient);
        reply = OPT_IN_REPLY;
      } else {
        reply = number?.help_text ?? this.deps.config.messaging.helpText;
      }
      await this.deps.messages.sendInternalMessage({
        id: derivedId(IdPrefix.message, id, 'auto_reply'),
        accountId,
        livemode,
        to: recipient,
        from: sender,
        body: reply,
        origin: 'auto_reply',
      });
    }

    if (!keyword && number) {
      // Inbound consent, checked once: an opted-out customer is written down, but no run answers. A number
      // with no agent delivers into the team's inbox (a conversation without an agent).
      const customerOptedOut = await this.repo.isOptedOut(db, owner, sms.to, sms.from);
      await this.deps.customerSms.receiveInbound({ accountId, livemode, phoneNumberId: number.id, agentId: number.agent_id ?? null, message, customerOptedOut });
    }
  }

  /**
   * An inbound SMS to a sender nobody owns (the platform's verification sender): not stored and not
   * shown to any account. An opt-out still counts, for every account that wrote to the handset from
   * that sender, so consent holds without anyone reading the message.
   */
  private async onInboundToUnownedSender(sms: InboundSms) {
    const { db, log } = this.deps;
    const keyword = classifyKeyword(sms.body);
    if (keyword?.action === 'opt_out' || keyword?.action === 'opt_out_all') {
      const livemode = !sms.sandbox;
      for (const accountId of await this.repo.findAccountsOfConversation(db, sms.to, sms.from, livemode)) {
        await this.repo.setConsent(db, { account_id: accountId, livemode, sender: sms.to, recipient: sms.from, opted_out: true, keyword: keyword.keyword });
      }
      log.info({ carrier: sms.carrier, to: sms.to }, 'Opt-out to an unowned sender applied to the accounts that wrote from it');
      return;
    }
    log.warn({ carrier: sms.carrier, to: sms.to }, 'Inbound SMS to an unowned sender dropped');
  }
}
