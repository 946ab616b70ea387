import type { Kysely } from 'kysely';
import type { AgentsService } from '../../agents/agents.service';
import type { ConversationsService } from '../../conversations/conversations.service';
import type { InboundChannelPort } from '../../domain/channels';
import type { ConversationInbox } from '../channel-ports';
import type { DB } from '../../db/schema';
import type { CallStatus } from '../../db/tables/calls';
import { AppError } from '../../domain/errors';
import { derivedId, IdPrefix } from '../../domain/ids';
import type { Logger } from '../../observability/logger';
import type { PhoneNumbersService } from '../../numbers/phone-numbers.service';
import type { RunObject } from '../../runs/run.schemas';
import { isTerminalRun } from '../../runs/run-lifecycle';
import type { RunsService } from '../../runs/runs.service';
import type { EventsService, EventTransaction } from '../../webhooks/events.service';
import { CALL_STATUS_RANK, CallRepo, type CallRow } from './call.repo';
import { takeoverNotLast, VoiceCallFlowSchema, type VoiceCallFlow } from '../../numbers/call-flow.schemas';
import { toCallObject, type CallStatusParams, type IncomingCallParams, type RecordingParams, type SpeechResultParams } from './call.schemas';
import { toTwiml, type TwimlVerb } from './twiml';
import type { Scope } from '../../domain/principal';
import { isE164 } from '../../domain/channels';

/** Paths of the provider's webhooks (VOICE_WEBHOOK_PATHS.incoming is what a number's voice URL points at). */
export const VOICE_WEBHOOK_PATHS = {
  incoming: '/hooks/twilio/voice/incoming',
  speech: '/hooks/twilio/voice/speech',
  wait: '/hooks/twilio/voice/wait',
  status: '/hooks/twilio/voice/status',
  recording: '/hooks/twilio/voice/recording',
} as const;

/** What the caller hears when the agent hands off (and when the call cannot stay with the agent). */
export const TRANSFER_NOTICE = "I'll connect you with a specialist.";
const HOLD_NOTICE = 'One moment, please.';
const NOT_HEARD = "Sorry, I didn't catch that. How can I help you?";
const GOODBYE_SILENT = "I can't hear anything, so I'll end the call now. Goodbye.";
const SORRY = "I'm sorry, something went wrong on my side.";
const NOT_IN_SERVICE = 'This number does not take calls. Goodbye.';
/** Speech turns with nothing heard before the call is ended. */
const MAX_SILENCES = 3;
/** Extra waits (each up to VOICE_TURN_WAIT_MS) for a run that has not settled, before a transfer. */
const MAX_WAITS = 2;

/** The call.* event emitted when a call reaches a status (queued emits nothing; busy/failed/… are call.completed). */
const STATUS_EVENT: Record<CallStatus, string | undefined> = {
  queued: undefined,
  initiated: 'call.initiated',
  ringing: 'call.ringing',
  'in-progress': 'call.answered',
  completed: 'call.completed',
  busy: 'call.completed',
  failed: 'call.completed',
  'no-answer': 'call.completed',
  canceled: 'call.completed',
};
const TERMINAL = new Set<CallStatus>(['completed', 'busy', 'failed', 'no-answer', 'canceled']);

/**
 * Inbound voice calls over Twilio Programmable Voice. A call on one of the account's numbers runs the
 * number's call flow; `connect_agent` hands it to an agent: each speech result is a customer message of the
 * caller's conversation (continued across channels by phone number) whose run answers in the same turn,
 * spoken, with the next listen; a handoff, or anything that keeps the agent from answering, is spoken as a
 * transfer notice and dials the flow's `transfer_to`. Every turn is a message of the conversation with
 * channel voice. Provider status and recording callbacks move the call and emit call.* events.
 * Each method answers the webhook with TwiML.
 */
export class VoiceCallsService implements InboundChannelPort<{ params: SpeechResultParams; silences: number }, string> {
  readonly channel = 'voice' as const;
  private readonly repo = new CallRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      phoneNumbers: PhoneNumbersService;
      agents: AgentsService;
      conversations: ConversationInbox & Pick<ConversationsService, 'appendAgentMessage'>;
      runs: RunsService;
      events: EventsService;
      log: Logger;
      publicBaseUrl: string;
      turnWaitMs: number;
    },
  ) {}

  /** The absolute URL of a voice webhook, as the provider is told to call it (and signs it). */
  webhookUrl(path: string, query: Record<string, string> = {}): string {
    const qs = new URLSearchParams(query).toString();
    return `${this.deps.publicBaseUrl.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
  }

  /** A call comes in: record it (call.initiated and its status), answer it, and run the number's call flow. */
  async answerIncomingCall(params: IncomingCallParams): Promise<string> {
    const number = await this.deps.phoneNumbers.findNumber({ number: params.To });
    if (!number) {
      this.deps.log.warn({ callSid: params.CallSid }, 'Call to a number no account holds');
      return toTwiml([{ verb: 'say', text: NOT_IN_SERVICE }, { verb: 'hangup' }], 'en-US');
    }
    const parsed = number.voice_call_flow ? VoiceCallFlowSchema.safeParse(number.voice_call_flow) : undefined;
    // A flow whose takeover is not last was never stored by the service; if one is, it is not played.
    const flow: VoiceCallFlow | undefined = parsed?.success && !takeoverNotLast(parsed.data) ? parsed.data : undefined;
    const language = flow?.language ?? 'en-US';
    const last = flow?.actions.at(-1);
    const connect = last?.action === 'connect_agent' ? last : undefined;

    const { call, inserted } = await this.repo.insertCall(this.deps.db, {
      id: params.CallSid,
      account_id: number.account_id,
      livemode: number.livemode,
      phone_number_id: number.id,
      direction: 'inbound',
      from_number: params.From,
      to_number: params.To,
      status: 'initiated',
      language,
      agent_id: connect?.agent_id ?? null,
      conversation_id: null,
      transfer_to: connect?.transfer_to ?? (last?.action === 'dial' ? last.number : null),
      transferred_at: null,
      duration_seconds: null,
      recording_sid: null,
      recording_url: null,
      recording_duration_seconds: null,
      answered_at: null,
      ended_at: null,
    });
    if (inserted) await this.emitCallEvent(call, 'call.initiated');
    await this.advanceCall({ CallSid: call.id, CallStatus: params.CallStatus });
    // The TwiML below answers the call (Twilio sends an inbound call's number only its final status).
    await this.advanceCall({ CallSid: call.id, CallStatus: 'in-progress' });

    if (!flow) {
      if (parsed && !parsed.success) this.deps.log.error({ phoneNumberId: number.id, issues: parsed.error.issues.length }, 'Stored call flow does not parse');
      return toTwiml([{ verb: 'say', text: NOT_IN_SERVICE }, { verb: 'hangup' }], language);
    }
    const verbs: TwimlVerb[] = [];
    if (flow.record) verbs.push({ verb: 'record', callbackUrl: this.webhookUrl(VOICE_WEBHOOK_PATHS.recording) });
    for (const a of flow.actions) if (a.action === 'say') verbs.push({ verb: 'say', text: a.text });
    if (last?.action === 'dial') {
      await this.markTransferred(call);
      verbs.push({ verb: 'dial', number: last.number });
    } else if (connect) {
      const usable = await this.agentTakesCalls({ accountId: number.account_id, livemode: number.livemode }, connect.agent_id);
      if (usable) verbs.push({ verb: 'gather', actionUrl: this.webhookUrl(VOICE_WEBHOOK_PATHS.speech), prompt: connect.greeting });
      else {
        await this.markTransferred(call);
        verbs.push({ verb: 'say', text: TRANSFER_NOTICE }, { verb: 'dial', number: connect.transfer_to });
      }
    } else {
      verbs.push({ verb: 'hangup' });
    }
    return toTwiml(verbs, language);
  }

  /**
   * A speech result (or silence) of a call handed to an agent: the caller's words become a customer message
   * of the conversation and its run answers in this turn (retrieval included), spoken, then the next listen.
   */
  async receiveInbound(input: { params: SpeechResultParams; silences: number }): Promise<string> {
    const { params } = input;
    const call = await this.repo.getCall(this.deps.db, params.CallSid);
    if (!call || !call.agent_id) return this.endUnknownCall(params.CallSid);
    const speech = params.SpeechResult?.trim() ?? '';
    if (speech === '') {
      const silences = input.silences + 1;
      if (silences >= MAX_SILENCES) return toTwiml([{ verb: 'say', text: GOODBYE_SILENT }, { verb: 'hangup' }], call.language);
      return toTwiml([{ verb: 'gather', actionUrl: this.webhookUrl(VOICE_WEBHOOK_PATHS.speech, { silences: String(silences) }), prompt: NOT_HEARD }], call.language);
    }
    let run: RunObject | undefined;
    let conversationId: string;
    try {
      const received = await this.deps.conversations.receiveCustomerMessage({
        accountId: call.account_id, livemode: call.livemode,
        agentId: call.agent_id,
        channel: 'voice',
        // The same caller on sms or chat continues the same conversation (a withheld number matches nobody).
        customer: isE164(call.from_number) ? { phone: call.from_number } : {},
        content: speech,
        conversationId: call.conversation_id ?? undefined,
        waitMs: this.deps.turnWaitMs,
      });
      conversationId = await this.repo.linkConversation(this.deps.db, call.id, received.conversation.id);
      run = received.message.run;
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      // The agent cannot take this turn (unpublished, voice removed, conversation gone): a human can.
      this.deps.log.warn({ callSid: call.id, code: err.code }, 'Voice turn refused; transferring');
      return this.transfer(call, { reason: SORRY });
    }
    return this.answerWithRun(call, conversationId, run, 0);
  }

  /** A turn whose run had not settled: wait for it again, then answer as receiveInbound would. */
  async continueTurn(params: { CallSid: string }, opts: { runId: string; waits: number }): Promise<string> {
    const call = await this.repo.getCall(this.deps.db, params.CallSid);
    if (!call || !call.agent_id || !call.conversation_id) return this.endUnknownCall(params.CallSid);
    const run = await this.deps.runs.getRun({ accountId: call.account_id, livemode: call.livemode, runId: opts.runId }).catch(() => undefined);
    if (!run || run.conversation_id !== call.conversation_id) return this.endUnknownCall(params.CallSid);
    const settled = await this.deps.runs.waitForRun({ runId: run.id, waitMs: this.deps.turnWaitMs });
    return this.answerWithRun(call, call.conversation_id, settled, opts.waits);
  }

  /** A status callback: the call moves forward (never back: callbacks may arrive out of order), with its event. */
  async recordCallStatus(params: CallStatusParams): Promise<void> {
    const moved = await this.advanceCall(params);
    if (!moved) this.deps.log.debug({ callSid: params.CallSid, status: params.CallStatus }, 'Call status ignored');
  }

  /** A recording callback: the recording of a call is processed (call.recording.ready). */
  async recordRecording(params: RecordingParams): Promise<void> {
    if (params.RecordingStatus !== 'completed') return;
    await this.deps.events.transaction(async (tx) => {
      const call = await this.repo.getCallForUpdate(tx, params.CallSid);
      if (!call) return;
      const updated = await this.repo.updateCall(tx, call.id, {
        recording_sid: params.RecordingSid,
        recording_url: params.RecordingUrl,
        recording_duration_seconds: params.RecordingDuration ?? null,
      });
      await this.emitCallEvent(updated, 'call.recording.ready', tx, params.RecordingSid);
    });
  }

  /** Speaks a settled run's answer and listens again, or transfers when it handed off or cannot answer. */
  private async answerWithRun(call: CallRow, conversationId: string, run: RunObject | undefined, waits: number): Promise<string> {
    // No run: a human holds the conversation (it was handed off earlier, on this call or another channel).
    if (!run) return this.transfer(call, { conversationId });
    if (run.status === 'completed') {
      if (run.reply) return toTwiml([{ verb: 'gather', actionUrl: this.webhookUrl(VOICE_WEBHOOK_PATHS.speech), prompt: run.reply.content }], call.language);
      return this.transfer(call, { conversationId, runId: run.id });
    }
    if (isTerminalRun(run.status)) return this.transfer(call, { conversationId, runId: run.id, reason: SORRY });
    // queued, in_progress, or requires_action (an approval or an async tool result): wait a little, then a human takes over.
    if (waits >= MAX_WAITS) return this.transfer(call, { conversationId, runId: run.id });
    const url = this.webhookUrl(VOICE_WEBHOOK_PATHS.wait, { run: run.id, waits: String(waits + 1) });
    return toTwiml([{ verb: 'say', text: HOLD_NOTICE }, { verb: 'pause', seconds: 1 }, { verb: 'redirect', url }], call.language);
  }

  /**
   * Hands the call to a person: speaks the transfer notice (after `reason`, if any), writes it to the
   * transcript as the agent's turn, and dials the flow's transfer number.
   */
  private async transfer(call: CallRow, opts: { conversationId?: string; runId?: string; reason?: string }): Promise<string> {
    const said = opts.reason ? `${opts.reason} ${TRANSFER_NOTICE}` : TRANSFER_NOTICE;
    const conversationId = opts.conversationId ?? call.conversation_id;
    if (conversationId) {
      await this.deps.conversations.appendAgentMessage({
        accountId: call.account_id, livemode: call.livemode,
        conversationId,
        messageId: derivedId(IdPrefix.message, call.id, 'transfer'),
        channel: 'voice',
        content: said,
        runId: opts.runId ?? null,
      });
    }
    await this.markTransferred(call);
    if (!call.transfer_to) return toTwiml([{ verb: 'say', text: opts.reason ?? SORRY }, { verb: 'hangup' }], call.language);
    return toTwiml([{ verb: 'say', text: said }, { verb: 'dial', number: call.transfer_to }], call.language);
  }

  private async markTransferred(call: CallRow) {
    if (!call.transferred_at) await this.repo.updateCall(this.deps.db, call.id, { transferred_at: new Date() });
  }

  private endUnknownCall(callSid: string): string {
    this.deps.log.warn({ callSid }, 'Voice turn for a call that is not with an agent');
    return toTwiml([{ verb: 'say', text: SORRY }, { verb: 'hangup' }], 'en-US');
  }

  private async agentTakesCalls(scope: Scope, agentId: string): Promise<boolean> {
    try {
      const live = await this.deps.agents.getLiveVersion({ ...scope, agentId });
      return live.config.channels.includes('voice');
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return false;
      throw err;
    }
  }

  /** Moves the call to `CallStatus` if that is forward, with its timestamps and event, in one transaction. */
  private async advanceCall(params: Pick<CallStatusParams, 'CallSid' | 'CallStatus' | 'CallDuration'>): Promise<boolean> {
    return this.deps.events.transaction(async (tx) => {
      const call = await this.repo.getCallForUpdate(tx, params.CallSid);
      if (!call) return false;
      const status = params.CallStatus;
      if (CALL_STATUS_RANK[status] <= CALL_STATUS_RANK[call.status]) {
        // A repeated final callback may still bring the duration.
        if (TERMINAL.has(status) && call.duration_seconds === null && params.CallDuration !== undefined) {
          await this.repo.updateCall(tx, call.id, { duration_seconds: params.CallDuration });
        }
        return false;
      }
      const now = new Date();
      const updated = await this.repo.updateCall(tx, call.id, {
        status,
        ...(status === 'in-progress' ? { answered_at: now } : {}),
        ...(TERMINAL.has(status) ? { ended_at: now, duration_seconds: params.CallDuration ?? null } : {}),
      });
      const type = STATUS_EVENT[status];
      if (type) await this.emitCallEvent(updated, type, tx);
      return true;
    });
  }

  private async emitCallEvent(call: CallRow, type: string, tx?: EventTransaction, discriminator = '') {
    await this.deps.events.emit(
      { accountId: call.account_id, livemode: call.livemode, type, data: toCallObject(call), eventId: derivedId(IdPrefix.event, call.id, type, discriminator) },
      tx ? { tx } : {},
    );
  }
}
