import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { CallsService } from '../channels/voice/calls.service';
import type { VoiceCallsService } from '../channels/voice/voice-calls.service';
import type { EmailAddressesService } from '../channels/email/email-addresses.service';
import type { InboundEmailService } from '../channels/email/inbound-email.service';
import type { InboundEmailResult } from '../channels/email/email.schemas';
import { AppError, notFound } from '../domain/errors';
import { derivedId, IdPrefix } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import type { PhoneNumbersService } from '../numbers/phone-numbers.service';
import type { InboundSmsService } from '../sms/inbound-sms.service';
import type { MessageObject } from '../sms/message.schemas';
import type { MessagesService } from '../sms/messages.service';
import type { CallObject } from '../channels/voice/call.schemas';
import type { InboundTestEmailBody, InboundTestMessageBody, TestCallTurn, TestReceiptBody } from './test-helpers.schemas';

/** The carrier name test SMS arrive from: the built-in sandbox's. */
const TEST_CARRIER = 'sandbox';

/**
 * Test helpers (test mode only, like Stripe's): what a carrier, a mail relay or the voice provider would
 * send, placed by the API caller and handed to the same services their webhooks and listeners call:
 * inbound SMS to InboundSmsService.onInbound (consent keywords, conversation matching, the agent's run and
 * its reply over the sandbox), receipts to onReceipt, emails to InboundEmailService, call steps to
 * VoiceCallsService. Nothing here decides anything those services do not; it only checks that what is
 * addressed is the caller's (test-mode) number, address, message or call.
 */
export class TestHelpersService {
  constructor(
    private readonly deps: {
      inboundSms: InboundSmsService;
      messages: MessagesService;
      phoneNumbers: PhoneNumbersService;
      inboundEmail: InboundEmailService;
      emailAddresses: EmailAddressesService;
      voiceCalls: VoiceCallsService;
      calls: CallsService;
    },
  ) {}

  /** A customer's SMS to one of the scope's numbers, as the sandbox carrier's deliver_sm; the stored inbound message. */
  async receiveTestMessage(input: Scope & InboundTestMessageBody): Promise<MessageObject> {
    const scope = testScope(input);
    await this.numberOf(scope, input.to);
    const carrierMessageId = `test_${randomBytes(12).toString('hex')}`;
    await this.deps.inboundSms.onInbound({ carrier: TEST_CARRIER, carrierMessageId, from: input.from, to: input.to, body: input.body, receivedAt: new Date(), sandbox: true });
    return this.deps.messages.getMessage({ ...scope, messageId: derivedId(IdPrefix.message, 'inbound', TEST_CARRIER, carrierMessageId) });
  }

  /**
   * The carrier's delivery receipt for a test message it took (status sending or sent): folded in as a
   * real receipt is (message.updated follows). 409 for a message no carrier holds or already final.
   */
  async receiveTestReceipt(input: Scope & TestReceiptBody & { messageId: string }): Promise<MessageObject> {
    const scope = testScope(input);
    const message = await this.deps.messages.getMessage({ ...scope, messageId: input.messageId });
    if (message.direction !== 'outbound' || !message.carrier || !message.carrier_message_id || !['sending', 'sent'].includes(message.status)) {
      throw new AppError('resource_conflict', `Message ${message.id} is ${message.direction} and ${message.status}: only an outbound message a carrier took (sending or sent) gets a receipt`, { param: 'id' });
    }
    await this.deps.inboundSms.onReceipt({
      carrier: message.carrier,
      carrierMessageId: message.carrier_message_id,
      status: input.status,
      ...(input.carrier_error_code ? { carrierErrorCode: input.carrier_error_code } : {}),
      at: new Date(),
    });
    return this.deps.messages.getMessage({ ...scope, messageId: message.id });
  }

  /** An email to one of the scope's addresses (raw, or built from the structured fields), as the relay posts it. */
  async receiveTestEmail(input: Scope & InboundTestEmailBody): Promise<InboundEmailResult> {
    const scope = testScope(input);
    let rawBody: Buffer;
    if ('raw' in input) {
      rawBody = Buffer.from(input.raw, 'utf8');
    } else {
      if (!(await this.deps.emailAddresses.findAccountAddress({ ...scope, address: input.to }))) throw new AppError('resource_missing', `No such email address in test mode: '${input.to}'`, { param: 'to' });
      rawBody = await new MailComposer({
        from: input.from_name ? { name: input.from_name, address: input.from } : input.from,
        to: input.to,
        subject: input.subject ?? '',
        text: input.text,
        inReplyTo: input.in_reply_to,
        references: input.references,
      }).compile().build();
    }
    return this.deps.inboundEmail.receiveTestEmail({ rawBody, scope });
  }

  /** A call to one of the scope's numbers: the call as recorded and the TwiML that answers it (its call flow). */
  async placeTestCall(input: Scope & { from: string; to: string }): Promise<TestCallTurn> {
    const scope = testScope(input);
    await this.numberOf(scope, input.to);
    const callSid = `CA${randomBytes(16).toString('hex')}`;
    const twiml = await this.deps.voiceCalls.answerIncomingCall({ CallSid: callSid, From: input.from, To: input.to, CallStatus: 'ringing' });
    return { object: 'test_call_turn', call: await this.deps.calls.getCall({ ...scope, callId: callSid }), twiml };
  }

  /** One spoken turn of a test call (empty: silence): the TwiML the service answers with (the agent's spoken reply, a hold, or a transfer). */
  async speakOnTestCall(input: Scope & { callId: string; speech: string; confidence?: number }): Promise<TestCallTurn> {
    const scope = testScope(input);
    await this.deps.calls.getCall({ ...scope, callId: input.callId });
    const twiml = await this.deps.voiceCalls.receiveInbound({ params: { CallSid: input.callId, SpeechResult: input.speech, Confidence: input.confidence }, silences: 0 });
    return { object: 'test_call_turn', call: await this.deps.calls.getCall({ ...scope, callId: input.callId }), twiml };
  }

  /** The caller hangs up: the provider's final status callback (completed, with the duration). */
  async hangUpTestCall(input: Scope & { callId: string; durationSeconds?: number }): Promise<CallObject> {
    const scope = testScope(input);
    await this.deps.calls.getCall({ ...scope, callId: input.callId });
    await this.deps.voiceCalls.recordCallStatus({ CallSid: input.callId, CallStatus: 'completed', CallDuration: input.durationSeconds });
    return this.deps.calls.getCall({ ...scope, callId: input.callId });
  }

  private async numberOf(scope: Scope, number: string) {
    const row = await this.deps.phoneNumbers.findAccountNumber({ ...scope, number });
    if (!row) throw notFound('phone number in test mode', number, 'to');
    return row;
  }
}

/** Test helpers exist in test mode only; the routes answer a live key as if they did not exist. */
function testScope(input: Scope): Scope {
  const scope = scopeOf(input);
  if (scope.livemode) throw new AppError('route_missing', 'Test helpers exist in test mode only');
  return scope;
}
