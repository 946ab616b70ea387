import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { AnthropicPlanner } from '../../src/agents/planner/remote/anthropic.planner';
import { OpenAiPlanner } from '../../src/agents/planner/remote/openai.planner';
import type { PlannerInput } from '../../src/agents/planner/port';
import { openConversation, seedAgent } from '../support/agents';
import { pollUntil } from '../support/poll';
import { openEventStream, type ReceivedEvent } from '../support/sse';
import { startTestStack, type TestStack } from '../support/stack';
import { StreamingProvider } from '../support/streaming-provider';
import { createDevServerEnv } from '../support/temporal';

const provider = new StreamingProvider();
let env: TestWorkflowEnvironment;
let stack: TestStack;

before(async () => {
  await provider.start();
  env = await createDevServerEnv();
  stack = await startTestStack({
    label: __filename,
    env,
    config: { planner: { provider: 'openai', baseUrl: `${provider.baseUrl}/v1`, model: 'stream-test', timeoutMs: 20_000 } } as never,
  });
  await stack.services.conversationEvents.listen();
});
after(async () => {
  await stack?.services.conversationEvents.close();
  await stack?.close();
  await env?.teardown();
  await provider.stop();
});

const streamOf = (apiKey: string, cnv: string) => openEventStream(`${stack.baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${apiKey}` });

/** Events up to and including the first of `type` whose data passes `where`. */
async function readUntil(stream: Awaited<ReturnType<typeof streamOf>>, type: string, where: (e: ReceivedEvent) => boolean = () => true) {
  const out: ReceivedEvent[] = [];
  for (;;) {
    const e = await stream.next(20_000);
    if (!e) throw new Error(`stream ended before ${type}: ${JSON.stringify(out)}`);
    out.push(e);
    if (e.event === type && where(e)) return out;
  }
}

describe('token streaming from the openai planner to the conversation stream', () => {
  it('streams reply.delta as the provider sends it, redacts a card split across two deltas, and stores exactly the deltas joined', async () => {
    const f = await seedAgent(stack);
    const cnv = await openConversation(f);
    const stream = await streamOf(f.apiKey, cnv);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let finished = false;
    provider.handle = async (_body, send) => {
      send.openAiChunk({ role: 'assistant', content: '' });
      for (const p of ['Standard ', 'shipping ', 'takes 3 to 5 ', 'business days [', '1]. ']) send.openAiChunk({ content: p });
      await released;
      for (const p of ['Your card 4242 4242 ', '4242 4242 is ', 'on file', '.']) send.openAiChunk({ content: p });
      send.openAiDone();
      finished = true;
    };
    const posted = await f.call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: 'How long does standard shipping take?' });
    assert.equal(posted.status, 201);

    const firstDelta = (await readUntil(stream, 'reply.delta')).at(-1)!;
    assert.equal(finished, false, 'the first delta arrives while the provider is still answering');
    assert.match(firstDelta.data.text, /^Standard/);
    release();
    const rest = await readUntil(stream, 'conversation.message', (e) => e.data.role === 'agent');
    const deltas = [firstDelta, ...rest.filter((e) => e.event === 'reply.delta')];
    const agent = rest.at(-1)!;
    const joined = deltas.map((d) => d.data.text).join('');
    assert.equal(joined, agent.data.content, 'the stored reply equals the deltas joined');
    assert.equal(agent.data.content, 'Standard shipping takes 3 to 5 business days. Your card [card ••••4242] is on file.');
    for (const d of deltas) {
      assert.equal(d.data.run_id, posted.body.run.id);
      assert.doesNotMatch(d.data.text, /4242 4242|\[1\]/, `a delta leaked: ${JSON.stringify(d.data.text)}`);
    }
    assert.ok(deltas.length >= 3, `deltas: ${deltas.length}`);
    assert.equal(provider.requests.at(-1).stream, true);
    assert.ok(!rest.some((e) => e.event === 'reply.retracted'));
    stream.close();
  });

  it('retracts the streamed reply when the finishing step hands off (low confidence), with the reason', async () => {
    const f = await seedAgent(stack, { retrieval_required: false });
    const cnv = await openConversation(f);
    const stream = await streamOf(f.apiKey, cnv);
    // No citation: confidence 0.3, below the default floor 0.5: the run hands off.
    provider.handle = async (_b, send) => send.openAiText(['I think ', 'it is probably ', 'fine.']);
    await f.call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: 'Can I bring my parrot to the shareholder meeting?' });
    const events = await readUntil(stream, 'conversation.handoff');
    const retracted = events.find((e) => e.event === 'reply.retracted');
    assert.ok(events.some((e) => e.event === 'reply.delta'), JSON.stringify(events.map((e) => e.event)));
    assert.deepEqual(retracted?.data && { reason: retracted.data.reason, handoff_reason: retracted.data.handoff_reason }, { reason: 'handoff', handoff_reason: 'low_confidence' });
    assert.ok(events.indexOf(retracted!) < events.findIndex((e) => e.event === 'conversation.handoff'));
    assert.ok(!events.some((e) => e.event === 'conversation.message' && e.data.role === 'agent'), 'no agent message');
    stream.close();
  });

  it('still stops for approval when the planner streams a tool call (text before it is retracted)', async () => {
    const f = await seedAgent(stack, {
      tools: [{
        name: 'cancel_subscription', description: 'Cancel the customer subscription plan',
        parameters: { type: 'object', properties: { plan: { type: 'string', enum: ['basic', 'premium'] } }, required: ['plan'] },
        endpoint: 'http://127.0.0.1:9/cancel',
      }],
      guardrails: { requires_approval: ['cancel_subscription'] },
    });
    const cnv = await openConversation(f);
    const stream = await streamOf(f.apiKey, cnv);
    provider.handle = async (_b, send) => {
      send.openAiChunk({ role: 'assistant', content: 'Let me ' });
      send.openAiChunk({ content: 'do that for you now.' });
      send.openAiChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'cancel_subscription', arguments: '' } }] });
      send.openAiChunk({ tool_calls: [{ index: 0, function: { arguments: '{"plan":' } }] });
      send.openAiChunk({ tool_calls: [{ index: 0, function: { arguments: '"premium"}' } }] });
      send.openAiDone();
    };
    const posted = await f.call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: 'Please cancel my premium plan' });
    const run = await pollUntil('the run to require approval', async () => {
      const r = await f.call('GET', `/v1/runs/${posted.body.run.id}`);
      return r.body.status === 'requires_action' ? r.body : undefined;
    }, { timeoutMs: 20_000 });
    assert.equal(run.required_action.type, 'approve_tool_call');
    assert.deepEqual(run.required_action.tool_calls[0].arguments, { plan: 'premium' });
    const events = await readUntil(stream, 'reply.retracted');
    assert.equal(events.at(-1)!.data.reason, 'tool_calls');
    stream.close();
  });
});

const INPUT: PlannerInput = {
  instructions: 'Be helpful.', channel: 'chat', locale: 'en', context: {}, transcript: [],
  message: 'How long does shipping take?',
  passages: [{ ref: 1, sourceId: 'src_1', title: 'Shipping', text: 'Standard shipping takes 3 to 5 business days.', url: null, score: 0.9 }],
  tools: [], toolResults: [], retrievalRequired: true,
};

describe('planners stream reply text with citation markers removed', () => {
  it('anthropic: content_block_delta text arrives as it is sent; a marker split across deltas never shows', async () => {
    provider.handle = async (_b, send) => {
      send.anthropicStart();
      send.anthropicBlock(0, { type: 'text', text: '' });
      for (const p of ['Standard shipping ', 'takes 3 to 5 days [', '1', '] .', ' Anything  else?']) send.anthropicText(0, p);
      send.anthropicStop(17);
    };
    const pieces: string[] = [];
    const planner = new AnthropicPlanner({ baseUrl: provider.baseUrl, model: 'claude-test', timeoutMs: 5000 });
    const decision = await planner.plan(INPUT, { onReplyText: (t) => pieces.push(t) });
    assert.equal(decision.type, 'reply');
    assert.equal(pieces.join(''), decision.type === 'reply' ? decision.content : '');
    assert.equal(pieces.join(''), 'Standard shipping takes 3 to 5 days. Anything else?');
    assert.ok(pieces.every((p) => !p.includes('[')), JSON.stringify(pieces));
    assert.ok(decision.type === 'reply' && decision.citations.includes(1));
    assert.deepEqual(decision.usage, { input_tokens: 30, output_tokens: 17 });
    assert.equal(provider.requests.at(-1).stream, true);
  });

  it('reads a provider that floods one chunk with short lines in linear time, and refuses an endless event', async () => {
    provider.handle = async (_b, send) => {
      send.bytes(': keep-alive\n'.repeat(200_000));
      await send.openAiText(['Standard shipping takes 3 to 5 days [1].']);
    };
    const planner = new OpenAiPlanner({ baseUrl: `${provider.baseUrl}/v1`, model: 'm', timeoutMs: 10_000 });
    const started = performance.now();
    const decision = await planner.plan(INPUT, { onReplyText: () => undefined });
    assert.equal(decision.type, 'reply');
    assert.ok(performance.now() - started < 5000, `took ${Math.round(performance.now() - started)} ms`);

    provider.handle = async (_b, send) => send.bytes(`data: {"x":"${'a'.repeat(2 << 20)}`);
    await assert.rejects(planner.plan(INPUT, { onReplyText: () => undefined }), (e: any) => e.code === 'planner_unavailable');
  });

  it('openai: the same text without streaming gives the same decision', async () => {
    const pieces = ['Standard shipping ', 'takes 3 to 5 days [', '1', '] .', ' Anything  else?'];
    provider.handle = async (_b, send) => send.openAiText(pieces);
    const planner = new OpenAiPlanner({ baseUrl: `${provider.baseUrl}/v1`, model: 'm', timeoutMs: 5000 });
    const seen: string[] = [];
    const streamed = await planner.plan(INPUT, { onReplyText: (t) => seen.push(t) });
    assert.equal(seen.join(''), 'Standard shipping takes 3 to 5 days. Anything else?');
    assert.ok(streamed.type === 'reply' && streamed.content === seen.join('') && streamed.citations.includes(1));
  });
});
