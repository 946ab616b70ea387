import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalPlanner } from '../../src/agents/planner/local/local.planner';
import { followUpQuestion, type PlannerDecision, type PlannerInput, type PlannerPassage, type PlannerTool, type PlannerToolResult } from '../../src/agents/planner/port';
import { splitSentences, stem, tokenize } from '../../src/platform/text';

const planner = new LocalPlanner();

const passage = (ref: number, title: string, text: string, score: number): PlannerPassage => ({
  ref,
  sourceId: `src_${ref}`,
  title,
  text,
  url: `https://help.example.test/${ref}`,
  score,
});

const buildInput = (overrides: Partial<PlannerInput>): PlannerInput => ({
  instructions: 'You are the support agent of Acme Outfitters. Be friendly and brief.',
  channel: 'chat',
  locale: 'en-US',
  context: {},
  transcript: [],
  message: '',
  passages: [],
  tools: [],
  toolResults: [],
  retrievalRequired: true,
  ...overrides,
});

const SHIPPING = passage(1, 'Shipping', 'We ship to all EU countries. Standard shipping takes 3-5 business days. Express shipping is available for an extra fee.', 0.42);
const REFUNDS = passage(
  2,
  'Refunds',
  '## Refund policy\nRefunds are issued to the original payment method within 14 days of receiving the return. Shipping costs are **not** refunded.\n- Keep your receipt.',
  0.81,
);
const GIFT_CARDS = passage(3, 'Gift cards', 'Gift cards are valid for two years and cannot be exchanged for cash.', 0.18);

const lookupOrder: PlannerTool = {
  name: 'lookup_order',
  description: 'Look up the status of an order by its order number',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string', pattern: '^[0-9]{5,10}$', description: 'The order number' } },
    required: ['order_id'],
  },
};
const bookAppointment: PlannerTool = {
  name: 'book_appointment',
  description: 'Book a fitting appointment in a store for a given date',
  parameters: {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email' },
      date: { type: 'string', format: 'date' },
      store: { type: 'string', enum: ['berlin', 'paris', 'madrid'] },
    },
    required: ['email', 'date'],
  },
};
const createReturn: PlannerTool = {
  name: 'create_return',
  description: 'Start a return for items of an order',
  parameters: {
    type: 'object',
    properties: {
      order_number: { type: 'integer' },
      reason: { type: 'string', enum: ['damaged', 'wrong_item', 'no_longer_needed'] },
      quantity: { type: 'integer', minimum: 1, maximum: 10 },
    },
    required: ['order_number', 'reason'],
  },
};
const loyaltyPoints: PlannerTool = {
  name: 'get_loyalty_points',
  description: 'Get the loyalty points balance of a customer',
  parameters: { type: 'object', properties: { customer_id: { type: 'string' } }, required: ['customer_id'] },
};
const ALL_TOOLS = [lookupOrder, bookAppointment, createReturn, loyaltyPoints];

const result = (status: PlannerToolResult['status'], extra: Partial<PlannerToolResult> = {}): PlannerToolResult => ({
  callId: 'call_1',
  tool: 'lookup_order',
  arguments: { order_id: '12345' },
  status,
  ...extra,
});

function expectReply(d: PlannerDecision): Extract<PlannerDecision, { type: 'reply' }> {
  assert.equal(d.type, 'reply', `expected a reply, got ${JSON.stringify(d)}`);
  return d as Extract<PlannerDecision, { type: 'reply' }>;
}
function expectHandoff(d: PlannerDecision, reason: string): Extract<PlannerDecision, { type: 'handoff' }> {
  assert.equal(d.type, 'handoff', `expected a handoff, got ${JSON.stringify(d)}`);
  const h = d as Extract<PlannerDecision, { type: 'handoff' }>;
  assert.equal(h.reason, reason);
  assert.ok(h.summary.length > 20);
  return h;
}
function expectCall(d: PlannerDecision, tool: string, args: Record<string, unknown>) {
  assert.equal(d.type, 'tool_calls', `expected tool calls, got ${JSON.stringify(d)}`);
  const calls = (d as Extract<PlannerDecision, { type: 'tool_calls' }>).calls;
  assert.deepEqual(calls, [{ tool, arguments: args }]);
}

describe('local planner: grounded answers', () => {
  it('answers from the sentences of the right passage, cites it, and keeps markers and markdown out', async () => {
    const d = expectReply(await planner.plan(buildInput({ message: 'How long do refunds take?', passages: [SHIPPING, REFUNDS, GIFT_CARDS] })));
    assert.deepEqual(d.citations, [2]);
    assert.match(d.content, /within 14 days/);
    assert.doesNotMatch(d.content, /\[\d\]|\*\*|##|Standard shipping/);
    assert.equal(d.groundedInTools, false);
    assert.ok(d.confidence > 0.4 && d.confidence <= 0.81, `confidence ${d.confidence} is bounded by the passage score`);
    assert.ok(d.usage.input_tokens > 50 && d.usage.output_tokens > 5);
  });

  it("answers whenever the best passage's calibrated score reaches the floor, whatever the customer's words, at that score", async () => {
    // Issue 30: retrieval had decided the passage answers, then a word-overlap check handed off.
    const password = passage(1, 'Password reset', 'To reset your password, open Settings, choose Security and click Reset password. The reset link in the email is valid for one hour.', 0.93);
    const d = expectReply(await planner.plan(buildInput({ message: 'I forgot my login details, how do I get back into my account?', passages: [password] })));
    assert.deepEqual(d.citations, [1]);
    assert.equal(d.confidence, 0.93);
    assert.match(d.content, /open Settings, choose Security/);
    const returns = passage(2, 'Returns', 'You can return any unused item within 30 days of delivery. Start a return from Orders in your account and print the prepaid return label.', 0.88);
    const r = expectReply(await planner.plan(buildInput({ message: 'Can I still send back shoes I got three weeks ago?', passages: [returns] })));
    assert.deepEqual([r.citations, r.confidence], [[2], 0.88]);
    // A question half about something else keeps its passage's score: the score is already P(it answers).
    const partial = expectReply(await planner.plan(buildInput({ message: 'Can gift cards be used in the Lisbon outlet store?', passages: [{ ...GIFT_CARDS, score: 0.9 }] })));
    assert.equal(partial.confidence, 0.9);
  });

  it('hands off no_supporting_source exactly when no passage reaches the floor, naming the number that decided', async () => {
    const weak = expectHandoff(await planner.plan(buildInput({ message: 'Are gift cards valid for two years?', passages: [{ ...GIFT_CARDS, score: 0.49 }] })), 'no_supporting_source');
    assert.match(weak.summary, /floor 0\.5 \(best score 0\.49\)/);
    // The agent's own floor decides, not the default.
    const lower = expectReply(await planner.plan(buildInput({ message: 'Are gift cards valid for two years?', passages: [{ ...GIFT_CARDS, score: 0.49 }], confidenceFloor: 0.4 })));
    assert.equal(lower.confidence, 0.49);
    expectHandoff(await planner.plan(buildInput({ message: 'Are gift cards valid for two years?', passages: [{ ...GIFT_CARDS, score: 0.9 }], confidenceFloor: 0.95 })), 'no_supporting_source');
    // The suggestion for the person taking over quotes a passage only above a lower bar, else nothing.
    assert.match(weak.suggestedReply, /valid for two years/);
    const unrelated = expectHandoff(await planner.plan(buildInput({ message: 'Can I pay with bitcoin?', passages: [{ ...REFUNDS, score: 0.1 }] })), 'no_supporting_source');
    assert.equal(unrelated.suggestedReply, '');
  });

  it('quotes a short record whole, and from a long passage its sentences nearest the question by meaning, in document order', async () => {
    const hours = passage(1, 'Store opening hours', 'Our Springfield store is open Monday to Saturday from 9 am to 7 pm and on Sunday from 10 am to 4 pm. It is closed on public holidays.', 0.8);
    const whole = expectReply(await planner.plan(buildInput({ message: 'when can I come by the shop?', passages: [hours] })));
    assert.equal(whole.content, hours.text);
    // A paragraph longer than an SMS: the sentence whose stored vector is nearest the question is quoted,
    // not the one repeating the question's words.
    const paragraph = passage(
      2,
      'Delivery',
      [
        'Acme delivers to every state of the mainland and to most islands served by the postal service.',
        'Delivery costs are calculated at checkout from the weight of the parcel and the distance it travels.',
        'Parcels usually reach customers three to five working days after dispatch from our warehouse.',
        'Large furniture is delivered by a partner carrier who will call you to agree on a time slot.',
        'Deliveries cannot be redirected once the parcel has left the warehouse, so check your address.',
      ].join(' '),
      0.8,
    );
    const cosines = [0.8, 0.82, 0.91, 0.79, 0.8];
    const sms = expectReply(await planner.plan(buildInput({ channel: 'sms', message: 'how soon will my delivery get here', passages: [{ ...paragraph, sentenceCosines: cosines }] })));
    assert.equal(sms.content, 'Parcels usually reach customers three to five working days after dispatch from our warehouse.');
    assert.deepEqual(sms.citations, [2]);
    // Sentences within a whisker of the best join it, in the passage's order.
    const two = expectReply(await planner.plan(buildInput({ channel: 'sms', message: 'how soon will my delivery get here', passages: [{ ...paragraph, sentenceCosines: [0.8, 0.9, 0.91, 0.79, 0.8] }] })));
    assert.match(two.content, /^Delivery costs are calculated.*Parcels usually reach/);
  });

  it('reads a follow-up with the previous question', async () => {
    assert.equal(followUpQuestion('and on Sundays?', 'What are your opening hours?'), 'What are your opening hours? and on Sundays?');
    assert.equal(followUpQuestion('Can I pay with bitcoin?', 'What are your opening hours?'), 'Can I pay with bitcoin?');
    assert.equal(followUpQuestion('and on Sundays?', undefined), 'and on Sundays?');
  });

  it('keeps sms replies short and plain', async () => {
    const long = passage(1, 'Returns', `Our **return policy**: ${'You can return any unworn item within 30 days of delivery for a full refund, provided it is in its original packaging and you include the receipt. '.repeat(3)}`, 0.7);
    const d = expectReply(await planner.plan(buildInput({ channel: 'sms', message: 'Can I return an unworn item?', passages: [long] })));
    assert.ok(d.content.length <= 300, `${d.content.length} chars`);
    assert.doesNotMatch(d.content, /\*|#/);
    assert.deepEqual(d.citations, [1]);
  });

  it('hands off with no_supporting_source when nothing relevant is retrieved and retrieval is required', async () => {
    const h = expectHandoff(await planner.plan(buildInput({ message: 'What is the weather like on Mars?', passages: [SHIPPING, GIFT_CARDS] })), 'no_supporting_source');
    assert.match(h.summary, /weather like on Mars/);
    const none = expectHandoff(await planner.plan(buildInput({ message: 'Do you sell hiking boots?', passages: [] })), 'no_supporting_source');
    assert.ok(none.usage.input_tokens > 0);
    const open = expectReply(await planner.plan(buildInput({ message: 'What is the weather like on Mars?', passages: [], retrievalRequired: false })));
    assert.ok(open.confidence <= 0.2 && open.citations.length === 0);
  });

  it('answers German, French and Spanish questions from passages in those languages', async () => {
    const de = expectReply(
      await planner.plan(
        buildInput({
          locale: 'de-DE',
          message: 'Wie lange dauert eine Erstattung?',
          passages: [
            passage(1, 'Versand', 'Wir liefern in alle EU-Länder. Der Standardversand dauert 3 bis 5 Werktage.', 0.4),
            passage(2, 'Rückerstattung', 'Rückerstattungen werden innerhalb von 14 Tagen auf das ursprüngliche Zahlungsmittel überwiesen. Die Versandkosten werden nicht erstattet.', 0.7),
          ],
        }),
      ),
    );
    assert.deepEqual(de.citations, [2]);
    assert.match(de.content, /innerhalb von 14 Tagen/);
    const fr = expectReply(
      await planner.plan(
        buildInput({
          locale: null,
          message: 'Combien de temps faut-il pour un remboursement ?',
          passages: [
            passage(1, 'Livraison', 'La livraison prend 3 à 5 jours ouvrés.', 0.4),
            passage(2, 'Remboursements', 'Les remboursements sont effectués sous 14 jours après réception du retour.', 0.7),
          ],
        }),
      ),
    );
    assert.deepEqual(fr.citations, [2]);
    const es = expectReply(
      await planner.plan(
        buildInput({
          locale: null,
          message: '¿Cuánto tardan las devoluciones?',
          passages: [passage(1, 'Devoluciones', 'Las devoluciones se reembolsan en un plazo de 14 días.', 0.7), passage(2, 'Envíos', 'Los envíos tardan de 3 a 5 días laborables.', 0.3)],
        }),
      ),
    );
    assert.deepEqual(es.citations, [1]);
  });

  it('answers a question in another language from the passage in its own language, and says so in one line', async () => {
    const shipping = passage(1, 'Shipping times and costs', 'Standard shipping takes 3-5 business days within the EU. Express shipping arrives the next business day and costs 9.90 EUR.', 0.82);
    const de = expectReply(await planner.plan(buildInput({ locale: 'de-DE', message: 'Wie lange dauert der Versand?', passages: [shipping] })));
    assert.deepEqual(de.citations, [1]);
    assert.match(de.content, /^Standard shipping takes 3-5 business days within the EU\./);
    assert.ok(de.content.endsWith('(Antwort aus unserem englischsprachigen Hilfe-Center.)'), de.content);
    const es = expectReply(await planner.plan(buildInput({ locale: null, message: '¿Cuánto tarda el envío a mi casa?', passages: [shipping] })));
    assert.ok(es.content.endsWith('(Respuesta de nuestro centro de ayuda en inglés.)'), es.content);
    // The same passage asked about in its own language: no such line.
    const en = expectReply(await planner.plan(buildInput({ message: 'How long does shipping take?', passages: [shipping] })));
    assert.doesNotMatch(en.content, /help centre/);
    // A passage in another language that retrieval is unsure of is not quoted.
    const unsure = await planner.plan(buildInput({ locale: 'de-DE', message: 'Wie lange dauert der Versand?', passages: [{ ...shipping, score: 0.3 }] }));
    assert.equal(unsure.type, 'handoff');
  });

  it('greets and thanks without a source', async () => {
    assert.match(expectReply(await planner.plan(buildInput({ message: 'Hello!' }))).content, /How can I help/);
    assert.match(expectReply(await planner.plan(buildInput({ message: 'Danke schön!', locale: 'de-DE' }))).content, /Gern geschehen/);
  });
});

describe('local planner: tool choice and arguments', () => {
  it('calls the tool whose description matches, with the argument found by its pattern', async () => {
    expectCall(await planner.plan(buildInput({ message: 'Where is my order 12345?', tools: ALL_TOOLS })), 'lookup_order', { order_id: '12345' });
  });

  it('reads email and date formats (month names and locale-ordered numeric dates) and enum values', async () => {
    expectCall(
      await planner.plan(buildInput({ message: 'Please book an appointment in Paris on 3 March 2026, my email is Ana.Silva@example.com', tools: ALL_TOOLS })),
      'book_appointment',
      { email: 'Ana.Silva@example.com', date: '2026-03-03', store: 'paris' },
    );
    expectCall(
      await planner.plan(buildInput({ locale: 'en-GB', message: 'Book me an appointment for 04/03/2026, bob@example.org', tools: ALL_TOOLS })),
      'book_appointment',
      { email: 'bob@example.org', date: '2026-03-04' },
    );
    expectCall(
      await planner.plan(buildInput({ locale: 'de-DE', message: 'Bitte buchen Sie einen Termin am 05.04.2026 in Berlin, meine E-Mail ist hans@beispiel.de', tools: ALL_TOOLS })),
      'book_appointment',
      { email: 'hans@beispiel.de', date: '2026-04-05', store: 'berlin' },
    );
  });

  it('reads integers after their label, loose integers within their bounds, and enum values written as words', async () => {
    expectCall(
      await planner.plan(buildInput({ message: 'I want to return 2 items from order 88231, they arrived damaged', tools: ALL_TOOLS })),
      'create_return',
      { order_number: 88231, reason: 'damaged', quantity: 2 },
    );
    expectCall(await planner.plan(buildInput({ message: 'Return for order #88231: wrong item', tools: ALL_TOOLS })), 'create_return', {
      order_number: 88231,
      reason: 'wrong_item',
    });
  });

  it('reads a pattern value as written before ignoring case (no "MOTHER" from "mother" for an upper-case reference)', async () => {
    const wheelchair: PlannerTool = {
      name: 'request_wheelchair',
      description: 'Arrange wheelchair assistance at the airport',
      parameters: { type: 'object', properties: { booking_reference: { type: 'string', pattern: '^[A-Z0-9]{6}$' } }, required: ['booking_reference'] },
    };
    const d = await planner.plan(buildInput({ message: 'I need a wheelchair for my mother, booking HJ72KD', tools: [wheelchair], retrievalRequired: false }));
    assert.deepEqual(d.type === 'tool_calls' && d.calls, [{ tool: 'request_wheelchair', arguments: { booking_reference: 'HJ72KD' } }]);
  });

  it('takes arguments from the conversation context (flat or nested keys)', async () => {
    for (const context of [{ customer_id: 'cus_42' }, { customer: { id: 'cus_42' } }, { customerId: 'cus_42' }]) {
      expectCall(await planner.plan(buildInput({ message: 'How many loyalty points do I have?', context, tools: ALL_TOOLS })), 'get_loyalty_points', {
        customer_id: 'cus_42',
      });
    }
  });

  it('asks for a missing required argument instead of calling, then calls once the customer answers', async () => {
    const ask = expectReply(await planner.plan(buildInput({ message: 'Where is my order?', tools: ALL_TOOLS })));
    assert.equal(ask.content, 'Could you tell me your order number?');
    assert.deepEqual(ask.citations, []);
    assert.ok(ask.confidence >= 0.5 && ask.confidence <= 0.8);
    const transcript = [
      { role: 'customer' as const, content: 'Where is my order?' },
      { role: 'agent' as const, content: ask.content },
    ];
    expectCall(await planner.plan(buildInput({ message: "It's 12345", transcript, tools: ALL_TOOLS })), 'lookup_order', { order_id: '12345' });
    // A new question after a complete request is not an answer to an old one.
    const done = [
      { role: 'customer' as const, content: 'Where is my order 12345?' },
      { role: 'agent' as const, content: 'It shipped yesterday. Anything else I can help with?' },
    ];
    const next = await planner.plan(buildInput({ message: 'When do you open on Sundays?', transcript: done, tools: ALL_TOOLS }));
    assert.notEqual(next.type, 'tool_calls');
  });

  it('prefers a good passage answer to a tool it cannot call, and to a tool for a how-to question', async () => {
    const tracking = passage(1, 'Order tracking', 'You can track your order with the link in your shipping confirmation email.', 0.8);
    const d = expectReply(await planner.plan(buildInput({ message: 'How can I track my order?', passages: [tracking], tools: ALL_TOOLS })));
    assert.deepEqual(d.citations, [1]);
  });
});

describe('local planner: after tool calls', () => {
  it('replies from a successful result in plain words, grounded in tools', async () => {
    const ok = result('ok', { result: { order_id: '12345', status: 'shipped', carrier: 'DHL', estimated_delivery: '2026-03-06', _links: {} } });
    const d = expectReply(await planner.plan(buildInput({ message: 'Where is my order 12345?', tools: ALL_TOOLS, toolResults: [ok] })));
    assert.equal(d.content, "Here's what I found: Status: shipped; Carrier: DHL; Estimated delivery: 2026-03-06.");
    assert.equal(d.groundedInTools, true);
    assert.ok(d.confidence >= 0.8);
  });

  it('on a failure apologises and answers from passages, or hands off tool_failed when nothing else can be said', async () => {
    const tracking = passage(1, 'Order tracking', 'You can track your order with the link in your shipping confirmation email.', 0.7);
    const failed = result('error', { error: { code: 'http_500', message: 'Internal error' } });
    const apology = expectReply(await planner.plan(buildInput({ message: 'Where is my order 12345?', passages: [tracking], tools: ALL_TOOLS, toolResults: [failed] })));
    assert.match(apology.content, /^I'm sorry.*track your order.*connect you/);
    assert.deepEqual(apology.citations, [1]);
    const h = expectHandoff(await planner.plan(buildInput({ message: 'Where is my order 12345?', tools: ALL_TOOLS, toolResults: [failed] })), 'tool_failed');
    assert.match(h.summary, /lookup_order failed \(http_500/);
    expectHandoff(await planner.plan(buildInput({ message: 'Where is my order 12345?', tools: ALL_TOOLS, toolResults: [result('timed_out')] })), 'tool_failed');
  });

  it('hands off approval_rejected and approval_expired', async () => {
    expectHandoff(await planner.plan(buildInput({ message: 'Where is my order 12345?', tools: ALL_TOOLS, toolResults: [result('rejected')] })), 'approval_rejected');
    expectHandoff(await planner.plan(buildInput({ message: 'Where is my order 12345?', tools: ALL_TOOLS, toolResults: [result('expired')] })), 'approval_expired');
  });
});

describe('local planner: handoff on request', () => {
  it('hands off customer_requested in four languages, with a summary of the case', async () => {
    const transcript = [{ role: 'customer' as const, content: 'My parcel never arrived.' }];
    const h = expectHandoff(await planner.plan(buildInput({ message: 'I want to speak to a human', transcript })), 'customer_requested');
    assert.match(h.summary, /speak to a person.*speak to a human.*parcel never arrived/);
    for (const message of ['Ich möchte mit einem Mitarbeiter sprechen', 'Je voudrais parler à un conseiller', 'Quiero hablar con una persona', 'agent please']) {
      expectHandoff(await planner.plan(buildInput({ message })), 'customer_requested');
    }
    const notARequest = await planner.plan(buildInput({ message: 'Does the person who placed the order need to sign for it?', retrievalRequired: false }));
    assert.notEqual(notARequest.type, 'handoff');
  });

  it('answers how to reach a person from the contact passage that clears the floor, with the offer to connect; a request is handed over', async () => {
    const contact = passage(4, 'Contact us', 'You can reach customer service by email at help@acme.example or by phone at +1 415 555 0100.', 0.93);
    for (const message of ['how can I talk to someone at acme', 'What number do I call to speak to a human?', 'Wie kann ich einen Mitarbeiter erreichen?', '¿Cómo puedo hablar con una persona?']) {
      const d = await planner.plan(buildInput({ message, passages: [contact] }));
      assert.equal(d.type, 'reply', message);
      if (d.type !== 'reply') continue;
      assert.deepEqual(d.citations, [4], message);
      assert.equal(d.confidence, 0.93, message);
      assert.match(d.content, /\+1 415 555 0100/, message);
    }
    assert.match((await planner.plan(buildInput({ message: 'how can I talk to someone at acme', passages: [contact] })) as { content: string }).content, /connect you with a member of our team/);
    // Below the floor, or asked as a request, the customer is handed over.
    expectHandoff(await planner.plan(buildInput({ message: 'how can I talk to someone at acme', passages: [{ ...contact, score: 0.3 }] })), 'customer_requested');
    for (const message of ['Can I talk to a human?', 'I want to speak to someone', 'agent please']) {
      expectHandoff(await planner.plan(buildInput({ message, passages: [contact] })), 'customer_requested');
    }
  });
});

describe('planner text helpers', () => {
  it('stems plurals and inflections alike in four languages and splits sentences past abbreviations', () => {
    assert.deepEqual(['refunds', 'refunded', 'refund'].map(stem), ['refund', 'refund', 'refund']);
    assert.deepEqual(['deliveries', 'delivery'].map(stem), ['deliveri', 'deliveri']);
    assert.deepEqual(['rückerstattungen', 'rückerstattung'].map((w) => stem(tokenize(w)[0]!)), ['ruckerstattung', 'ruckerstattung']);
    assert.deepEqual(['devoluciones', 'devolución'].map((w) => stem(tokenize(w)[0]!)), ['devolucion', 'devolucion']);
    assert.deepEqual(splitSentences('Bring e.g. a receipt. Then wait 3 days.\n- Done'), ['Bring e.g. a receipt.', 'Then wait 3 days.', 'Done']);
  });
});
