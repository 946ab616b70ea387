import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import twilio from 'twilio';
import { TRANSFER_NOTICE, VOICE_WEBHOOK_PATHS } from '../../src/channels/voice/voice-calls.service';
import { AppError } from '../../src/domain/errors';
import { ask, openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { buildTestConfig } from '../support/config';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { fictionalNumber, newCallSid, twilioVoiceClient } from '../support/twilio-voice';

const AUTH_TOKEN = 'twilio-auth-token-for-tests';
const PUBLIC_BASE_URL = 'https://voice.example.com';
const TRANSFER_TO = '+14155550199';
const base = buildTestConfig();
const ctx = useTestStack({
  label: __filename,
  temporal: 'dev-server',
  config: { http: { ...base.http, publicBaseUrl: PUBLIC_BASE_URL }, voice: { twilioAuthToken: AUTH_TOKEN, turnWaitMs: 10_000 } },
});

const url = (path: string, query = '') => `${PUBLIC_BASE_URL}${path}${query}`;

/** The TwiML the service should answer, built with the twilio package's own builder. */
const expected = {
  start(opts: { record: boolean; say: string[]; greeting: string }) {
    const r = new twilio.twiml.VoiceResponse();
    if (opts.record) r.start().recording({ recordingStatusCallback: url(VOICE_WEBHOOK_PATHS.recording), recordingStatusCallbackEvent: ['completed'], channels: 'dual' });
    for (const text of opts.say) r.say({ language: 'en-US' }, text);
    r.gather({ input: ['speech'], action: url(VOICE_WEBHOOK_PATHS.speech), method: 'POST', speechTimeout: 'auto', actionOnEmptyResult: true, language: 'en-US' }).say({ language: 'en-US' }, opts.greeting);
    return r.toString();
  },
  answer(spoken: string, query = '') {
    const r = new twilio.twiml.VoiceResponse();
    r.gather({ input: ['speech'], action: url(VOICE_WEBHOOK_PATHS.speech, query), method: 'POST', speechTimeout: 'auto', actionOnEmptyResult: true, language: 'en-US' }).say({ language: 'en-US' }, spoken);
    return r.toString();
  },
  transfer(said: string, to = TRANSFER_TO) {
    const r = new twilio.twiml.VoiceResponse();
    r.say({ language: 'en-US' }, said);
    r.dial(to);
    return r.toString();
  },
};

async function voiceNumber(f: AgentFixture, flow: Record<string, unknown>) {
  const number = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: f.accountId, livemode: false, number: fictionalNumber() });
  const configured = await ctx.stack.services.phoneNumbers.setVoiceCallFlow({ accountId: f.accountId, livemode: false, phoneNumberId: number.id, flow: flow as never });
  return configured;
}

const voice = () => twilioVoiceClient({ baseUrl: ctx.stack.baseUrl, publicBaseUrl: PUBLIC_BASE_URL, authToken: AUTH_TOKEN });

async function eventsOf(f: AgentFixture, type: string) {
  const res = await f.call('GET', `/v1/events?type=${type}&limit=100`);
  assert.equal(res.status, 200);
  return res.body.data as Array<{ id: string; type: string; data: any }>;
}

describe('voice calls over Twilio Programmable Voice', () => {
  it('runs a scripted call: incoming → connect_agent → a grounded spoken answer → an out-of-knowledge question transferred, with call events and a transcript holding every turn with its sources', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms', 'voice'] });
    const number = await voiceNumber(f, {
      record: true,
      actions: [
        { action: 'say', text: 'Thanks for calling Acme.' },
        { action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO },
      ],
    });
    const shown = await f.call('GET', `/v1/phone_numbers/${number.id}`);
    assert.equal(shown.body.voice_call_flow.actions[1].action, 'connect_agent');
    assert.equal(shown.body.voice_call_flow.actions[1].greeting, 'How can I help you?');

    const post = voice();
    const CallSid = newCallSid();
    const caller = fictionalNumber();
    const call = { CallSid, AccountSid: 'AC00000000000000000000000000000000', From: caller, To: number.number, Direction: 'inbound', ApiVersion: '2010-04-01' };

    // 1. The call comes in: recorded, greeted, handed to the agent (listening for speech).
    const incoming = await post(VOICE_WEBHOOK_PATHS.incoming, { ...call, CallStatus: 'ringing' });
    assert.equal(incoming.status, 200, incoming.body);
    assert.match(incoming.contentType ?? '', /^text\/xml/);
    assert.equal(incoming.body, expected.start({ record: true, say: ['Thanks for calling Acme.'], greeting: 'How can I help you?' }));

    // 2. A question the knowledge base answers: retrieval and the reply in the same turn, spoken, then the next listen.
    const first = await post(VOICE_WEBHOOK_PATHS.speech, { ...call, CallStatus: 'in-progress', SpeechResult: 'How long does standard shipping take?', Confidence: '0.92' });
    assert.equal(first.status, 200, first.body);
    assert.match(first.body, /3 to 5 business days/);
    const spoken = [...first.body.matchAll(/<Say[^>]*>([^<]*)<\/Say>/g)].map((m) => m[1]).join(' ');
    assert.match(spoken, /3 to 5 business days/);
    assert.doesNotMatch(spoken, /https?:|www\.|\[\d\]|\*\*/, 'no URL, citation mark or markdown is read out');

    // 3. A question outside the knowledge base: the specialist notice and a transfer to the handoff queue's number.
    const second = await post(VOICE_WEBHOOK_PATHS.speech, { ...call, CallStatus: 'in-progress', SpeechResult: 'Can I bring my parrot to the annual shareholder meeting in Lisbon?' });
    assert.equal(second.status, 200, second.body);
    assert.equal(second.body, expected.transfer(TRANSFER_NOTICE));
    assert.equal(TRANSFER_NOTICE, "I'll connect you with a specialist.");

    // 4. Provider callbacks: a late duplicate of an earlier status changes nothing; the final status and the recording.
    assert.equal((await post(VOICE_WEBHOOK_PATHS.status, { ...call, CallStatus: 'ringing' })).status, 204);
    assert.equal((await post(VOICE_WEBHOOK_PATHS.status, { ...call, CallStatus: 'completed', CallDuration: '42' })).status, 204);
    const recordingUrl = `https://api.twilio.com/2010-04-01/Accounts/AC00000000000000000000000000000000/Recordings/RE${'1'.repeat(32)}`;
    const recording = await post(VOICE_WEBHOOK_PATHS.recording, { CallSid, AccountSid: call.AccountSid, RecordingSid: `RE${'1'.repeat(32)}`, RecordingUrl: recordingUrl, RecordingStatus: 'completed', RecordingDuration: '40' });
    assert.equal(recording.status, 204);

    for (const type of ['call.initiated', 'call.ringing', 'call.answered', 'call.completed', 'call.recording.ready']) {
      const events = (await eventsOf(f, type)).filter((e) => e.data.id === CallSid);
      assert.equal(events.length, 1, `${type} once`);
      assert.equal(events[0]!.data.object, 'call');
      assert.equal(events[0]!.data.from, caller);
      assert.equal(events[0]!.data.to, number.number);
    }
    const [completed] = await eventsOf(f, 'call.completed');
    assert.equal(completed!.data.status, 'completed');
    assert.equal(completed!.data.duration_seconds, 42);
    assert.equal(completed!.data.agent_id, f.agentId);
    assert.equal(completed!.data.transferred_to, TRANSFER_TO);
    assert.ok(completed!.data.answered_at && completed!.data.ended_at);
    const [ready] = await eventsOf(f, 'call.recording.ready');
    assert.deepEqual(ready!.data.recording, { sid: `RE${'1'.repeat(32)}`, url: recordingUrl, duration_seconds: 40 });
    const conversationId = completed!.data.conversation_id as string;
    assert.match(conversationId, /^cnv_/);

    // 5. The call transcript: every turn, on the voice channel, the answer with the sources it used.
    const transcript = await f.call('GET', `/v1/conversations/${conversationId}/messages`);
    assert.equal(transcript.status, 200);
    const turns = transcript.body.data as any[];
    assert.deepEqual(turns.map((m) => m.role), ['customer', 'agent', 'customer', 'agent']);
    assert.ok(turns.every((m) => m.channel === 'voice'));
    assert.equal(turns[0].content, 'How long does standard shipping take?');
    assert.equal(first.body, expected.answer(turns[1].content), 'what was said is what the transcript holds');
    assert.deepEqual(turns[1].attachments, ['https://help.example.com/shipping']);
    const run = await f.call('GET', `/v1/runs/${turns[1].run_id}`);
    assert.equal(run.body.channel, 'voice');
    assert.deepEqual(run.body.retrieval.filter((r: any) => r.cited).map((r: any) => r.url), turns[1].attachments);
    assert.equal(turns[3].content, TRANSFER_NOTICE);
    assert.deepEqual(turns[3].attachments, []);
    const handoffRun = await f.call('GET', `/v1/runs/${turns[3].run_id}`);
    assert.equal(handoffRun.body.message_id, turns[2].id);
    assert.equal(handoffRun.body.handoff.reason, 'no_supporting_source');
    const conversation = await f.call('GET', `/v1/conversations/${conversationId}`);
    assert.equal(conversation.body.status, 'handed_off');
    assert.equal(conversation.body.customer.phone, caller);
  });

  it('continues the caller’s conversation from another channel (matched by phone) and keeps its context', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms', 'voice'] });
    const number = await voiceNumber(f, { actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO, greeting: 'Hello again.' }] });
    const caller = fictionalNumber();
    const cnv = await openConversation(f, { customer: { phone: caller, name: 'Ada' } });
    await ask(f, cnv, 'How do I reset my password?');

    const post = voice();
    const call = { CallSid: newCallSid(), From: caller, To: number.number };
    const incoming = await post(VOICE_WEBHOOK_PATHS.incoming, { ...call, CallStatus: 'ringing' });
    assert.equal(incoming.body, expected.start({ record: false, say: [], greeting: 'Hello again.' }));
    const turn = await post(VOICE_WEBHOOK_PATHS.speech, { ...call, SpeechResult: 'How long does standard shipping take?' });
    assert.match(turn.body, /3 to 5 business days/);

    const transcript = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(
      transcript.body.data.map((m: any) => `${m.role}:${m.channel}`),
      ['customer:chat', 'agent:chat', 'customer:voice', 'agent:voice'],
    );
    const conversation = await f.call('GET', `/v1/conversations/${cnv}`);
    assert.equal(conversation.body.channel, 'voice');
  });

  it('asks again after silence and ends the call after three silent turns', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['voice'] });
    const number = await voiceNumber(f, { actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO }] });
    const post = voice();
    const call = { CallSid: newCallSid(), From: fictionalNumber(), To: number.number };
    await post(VOICE_WEBHOOK_PATHS.incoming, { ...call, CallStatus: 'ringing' });
    const once = await post(VOICE_WEBHOOK_PATHS.speech, call);
    assert.equal(once.body, expected.answer("Sorry, I didn't catch that. How can I help you?", '?silences=1'));
    const twice = await post(`${VOICE_WEBHOOK_PATHS.speech}?silences=1`, { ...call, SpeechResult: '  ' });
    assert.equal(twice.body, expected.answer("Sorry, I didn't catch that. How can I help you?", '?silences=2'));
    const thrice = await post(`${VOICE_WEBHOOK_PATHS.speech}?silences=2`, call);
    assert.match(thrice.body, /<Hangup\/>/);
    const messages = await ctx.stack.database.db.selectFrom('conversation_messages').select('id').where('account_id', '=', f.accountId).execute();
    assert.equal(messages.length, 0, 'silence writes no turn');
  });

  it('transfers at once when the flow’s agent no longer takes calls, and dials a dial action’s number', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'voice'] });
    const number = await voiceNumber(f, { actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO }] });
    // The agent is republished without voice after the flow was set.
    await ctx.stack.services.agents.updateDraft({ accountId: f.accountId, livemode: false, agentId: f.agentId, config: { name: 'Support', channels: ['chat'], knowledge_bases: [{ id: f.knowledgeBaseId }] } });
    await ctx.stack.services.agents.publishAgent({ accountId: f.accountId, livemode: false, agentId: f.agentId });
    const post = voice();
    const refused = await post(VOICE_WEBHOOK_PATHS.incoming, { CallSid: newCallSid(), From: fictionalNumber(), To: number.number, CallStatus: 'ringing' });
    assert.equal(refused.body, expected.transfer(TRANSFER_NOTICE));

    const dialNumber = await voiceNumber(f, { actions: [{ action: 'say', text: 'Connecting you.' }, { action: 'dial', number: '+14155550100' }] });
    const dialed = await post(VOICE_WEBHOOK_PATHS.incoming, { CallSid: newCallSid(), From: fictionalNumber(), To: dialNumber.number, CallStatus: 'ringing' });
    assert.equal(dialed.body, expected.transfer('Connecting you.', '+14155550100'));
  });

  it('validates call flows: connect_agent last, a live agent configured for voice', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat'] });
    const number = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: f.accountId, livemode: false, number: fictionalNumber() });
    const set = (flow: unknown) => ctx.stack.services.phoneNumbers.setVoiceCallFlow({ accountId: f.accountId, livemode: false, phoneNumberId: number.id, flow: flow as never });
    await assert.rejects(
      set({ actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO }, { action: 'say', text: 'Bye' }] }),
      (err: AppError) => err.code === 'parameter_unprocessable' && err.param === 'voice_call_flow.actions.0.action',
    );
    await assert.rejects(set({ actions: [{ action: 'connect_agent', agent_id: f.agentId }] }), (err: AppError) => err.param === 'voice_call_flow.actions.0.transfer_to');
    await assert.rejects(set({ actions: [{ action: 'say', text: '   ' }] }), (err: AppError) => err.code === 'parameter_invalid' && err.param === 'voice_call_flow.actions.0.text');
    await assert.rejects(
      set({ actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO }] }),
      (err: AppError) => err.code === 'channel_not_supported',
    );
    const cleared = await set(null);
    assert.equal(cleared.voice_call_flow, null);
  });

  it('refuses unsigned and wrongly signed webhooks with 403 and records nothing', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['voice'] });
    const number = await voiceNumber(f, { actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO }] });
    const post = voice();
    const CallSid = newCallSid();
    const params = { CallSid, From: fictionalNumber(), To: number.number, CallStatus: 'ringing' };
    const unsigned = await post(VOICE_WEBHOOK_PATHS.incoming, params, false);
    assert.equal(unsigned.status, 403);
    assert.equal(JSON.parse(unsigned.body).error.code, 'permission_denied');
    const otherToken = await post(VOICE_WEBHOOK_PATHS.incoming, params, { authToken: 'not-our-token' });
    assert.equal(otherToken.status, 403);
    const otherUrl = await post(VOICE_WEBHOOK_PATHS.incoming, params, { url: `https://elsewhere.example.com${VOICE_WEBHOOK_PATHS.incoming}` });
    assert.equal(otherUrl.status, 403);
    // A signature over other parameters (a tampered speech result) fails too.
    const tampered = await fetch(`${ctx.stack.baseUrl}${VOICE_WEBHOOK_PATHS.status}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, url(VOICE_WEBHOOK_PATHS.status), { CallSid, CallStatus: 'ringing' }),
      },
      body: new URLSearchParams({ CallSid, CallStatus: 'completed' }).toString(),
    });
    assert.equal(tampered.status, 403);
    const calls = await ctx.stack.database.db.selectFrom('calls').select('id').where('account_id', '=', f.accountId).execute();
    assert.deepEqual(calls, []);
    assert.deepEqual(await eventsOf(f, 'call.initiated'), []);

    // The same request signed properly goes through.
    const signed = await post(VOICE_WEBHOOK_PATHS.incoming, params);
    assert.equal(signed.status, 200);
    await pollUntil('the call.initiated event', async () => (await eventsOf(f, 'call.initiated')).length === 1);
  });
});
