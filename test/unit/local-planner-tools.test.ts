import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asksAboutSubjectAnywhere } from '../../src/agents/planner/local/local-intents';
import { LocalPlanner } from '../../src/agents/planner/local/local.planner';
import type { PlannerDecision, PlannerInput, PlannerPassage, PlannerTool } from '../../src/agents/planner/port';
import { useLocalModelPlanner } from '../support/embeddings';

/**
 * Tools only when meant (issue 30, item 4): a question about a tool's subject is the knowledge's to answer
 * (or to hand off), a tool is called or its argument asked for only when the customer asks for the action,
 * and an off-topic message never leads to a tool's question, on any channel. The phrasings here are written
 * for these tests and are not in the tool-routing dev set the router is fitted and measured on (except "what's
 * the weather like", the issue's own words, close to the dev set's "what's the weather like tomorrow").
 */

// The tools of examples/agents/support-agent.yaml, with an order number pattern that also reads "12345".
const lookupOrder: PlannerTool = {
  name: 'lookup_order',
  description: 'Look up the status and tracking link of an order by its order number.',
  parameters: { type: 'object', properties: { order_number: { type: 'string', pattern: '^A?[0-9]{5,6}$', description: 'Order number such as A123456' } }, required: ['order_number'] },
};
const issueRefund: PlannerTool = {
  name: 'issue_refund',
  description: 'Refund an order to the original payment method.',
  parameters: { type: 'object', properties: { order_number: { type: 'string', pattern: '^A?[0-9]{5,6}$' }, reason: { type: 'string', maxLength: 200 } }, required: ['order_number'] },
};
const reset2fa: PlannerTool = {
  name: 'reset_two_factor',
  description: 'Reset two-factor authentication for a user who lost access to their authenticator app.',
  parameters: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
};
const ORDER_TOOLS = [lookupOrder, issueRefund];

const RETURNS: PlannerPassage = {
  ref: 1,
  sourceId: 'src_1',
  title: 'Returns',
  text: 'You can return any unused item within 30 days of delivery. Start a return from Orders in your account and print the prepaid label.',
  url: 'https://help.acme.example/returns',
  score: 0.9,
};

const input = (message: string, over: Partial<PlannerInput> = {}): PlannerInput => ({
  instructions: 'You are the support agent of Acme.',
  channel: 'chat',
  locale: 'en',
  context: {},
  transcript: [],
  message,
  passages: [],
  tools: ORDER_TOOLS,
  toolResults: [],
  retrievalRequired: true,
  confidenceFloor: 0.5,
  ...over,
});

const asksForArgument = (d: PlannerDecision) => d.type === 'reply' && d.clarifying === true;
const calls = (d: PlannerDecision) => (d.type === 'tool_calls' ? d.calls : []);

describe('local planner: tools only when meant (the local embedding model)', () => {
  const local = useLocalModelPlanner();

  it('answers "can I send it back?" from the returns policy with the order tools attached, on the example agent file\'s floor too, and asks for no order number', async () => {
    // The example agent file's floor is 0.4: a passage scored 0.45 answers there, and it answers a question
    // about the subject of the refund tool before any question about an order number.
    for (const channel of ['chat', 'voice', 'sms'] as const) {
      for (const [score, confidenceFloor] of [[0.9, 0.5], [0.45, 0.4]] as const) {
        const d = await local.planner.plan(input("I bought a jacket that doesn't fit, can I send it back?", { channel, passages: [{ ...RETURNS, score }], confidenceFloor }));
        assert.equal(d.type, 'reply', `${channel} ${score}: ${JSON.stringify(d)}`);
        assert.deepEqual(d.type === 'reply' && d.citations, [1], `${channel} ${score}: ${JSON.stringify(d)}`);
        assert.equal(d.type === 'reply' && d.clarifying, false);
        assert.match(d.type === 'reply' ? d.content : '', /30 days/);
      }
    }
  });

  it('a question about what a tool is about is answered from the knowledge; the request for the action asks for its argument', async () => {
    const tools = [reset2fa, ...ORDER_TOOLS];
    const twoFactor = { ...RETURNS, ref: 2, title: 'Two-factor authentication', text: 'Two-factor authentication asks for a code from your authenticator app each time you sign in.', score: 0.4 };
    const question = await local.planner.plan(input('I keep being asked for a code when I sign in. What is a two-factor code?', { tools, passages: [twoFactor], confidenceFloor: 0.3 }));
    assert.equal(asksForArgument(question), false, JSON.stringify(question));
    assert.deepEqual(question.type === 'reply' && question.citations, [2], JSON.stringify(question));
    const request = await local.planner.plan(input("I lost my phone and can't get past the two-factor step, please reset it", { tools, passages: [twoFactor], confidenceFloor: 0.3 }));
    assert.ok(asksForArgument(request), JSON.stringify(request));
    assert.match(request.type === 'reply' ? request.content : '', /email/);
  });

  it('"where is my order 12345?" calls the order tool, with or without a passage about orders', async () => {
    for (const passages of [[], [{ ...RETURNS, title: 'Order tracking', text: 'Track your order with the link in your shipping confirmation email.', score: 0.8 }]]) {
      const d = await local.planner.plan(input('where is my order 12345?', { passages }));
      assert.deepEqual(calls(d), [{ tool: 'lookup_order', arguments: { order_number: '12345' } }], JSON.stringify(d));
    }
    const cancel = await local.planner.plan(input('please refund my order, it arrived broken'));
    assert.ok(asksForArgument(cancel), JSON.stringify(cancel));
    assert.match(cancel.type === 'reply' ? cancel.content : '', /order number/i);
  });

  it("off-topic messages hand off on voice, chat and sms: no tool's question", async () => {
    for (const channel of ['voice', 'chat', 'sms'] as const) {
      for (const message of ["what's the weather like", 'who won the football last night?', 'Is the bridge closed for roadworks this week?']) {
        const d = await local.planner.plan(input(message, { channel, passages: [{ ...RETURNS, score: 0.04 }] }));
        assert.equal(d.type, 'handoff', `${channel} "${message}": ${JSON.stringify(d)}`);
        assert.equal(d.type === 'handoff' && d.reason, 'no_supporting_source');
      }
    }
  });
});

describe('local planner: tools only when meant, by keywords (no embedding model)', () => {
  const planner = new LocalPlanner();

  it('a question about returning an item is answered from a passage at the agent\'s floor, never met with a question for an order number', async () => {
    const answered = await planner.plan(input('The shoes are too small, can I return the order?', { channel: 'voice', passages: [{ ...RETURNS, score: 0.3 }], confidenceFloor: 0.2 }));
    assert.equal(answered.type, 'reply', JSON.stringify(answered));
    assert.deepEqual(answered.type === 'reply' && answered.citations, [1], JSON.stringify(answered));
    // A request still gets the question.
    const request = await planner.plan(input('Look up the status of my order please', { channel: 'voice', passages: [{ ...RETURNS, score: 0.3 }], confidenceFloor: 0.2 }));
    assert.ok(asksForArgument(request), JSON.stringify(request));
  });

  it('an off-topic message on voice, chat or sms never gets a tool\'s question, also right after the agent asked for an argument', async () => {
    const orderById: PlannerTool = {
      name: 'lookup_order',
      description: 'Look up the status of an order by its order number',
      parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['order_id'] },
    };
    const transcript = [
      { role: 'customer' as const, content: 'Where is my order?' },
      { role: 'agent' as const, content: 'Could you tell me your order ID?' },
    ];
    for (const channel of ['voice', 'chat', 'sms'] as const) {
      for (const message of ["what's the weather like", 'Is the bridge closed for roadworks this week?']) {
        for (const t of [[], transcript]) {
          const d = await planner.plan(input(message, { channel, tools: [orderById], transcript: t }));
          assert.equal(d.type, 'handoff', `${channel} "${message}" after ${t.length} turns: ${JSON.stringify(d)}`);
        }
      }
    }
  });

  it('reads a question put after the customer\'s story as a question about the subject', () => {
    for (const q of ["I bought a jacket that doesn't fit, can I send it back?", 'My bill went up. What is a roaming charge?', 'Thanks. How long do I have to return it?']) assert.equal(asksAboutSubjectAnywhere(q), true, q);
    for (const r of ['where is my order 12345?', 'cancel my order', 'I want a refund for order 12345, it arrived broken']) assert.equal(asksAboutSubjectAnywhere(r), false, r);
  });
});
