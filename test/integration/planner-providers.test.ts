import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AnthropicPlanner } from '../../src/agents/planner/remote/anthropic.planner';
import { LocalPlanner } from '../../src/agents/planner/local/local.planner';
import { OpenAiPlanner } from '../../src/agents/planner/remote/openai.planner';
import { createPlanner } from '../../src/agents/planner/factory';
import type { PlannerDecision, PlannerInput, PlannerTool, PlannerToolResult } from '../../src/agents/planner/port';
import { AppError } from '../../src/domain/errors';

/** A scripted provider: records each request and answers with the next scripted response. */
interface Scripted {
  status?: number;
  body?: unknown;
  /** Raw text instead of JSON. */
  raw?: string;
  delayMs?: number;
}
interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

class FakeProvider {
  readonly requests: Recorded[] = [];
  private readonly script: Scripted[] = [];
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined });
      const next = this.script.shift() ?? { status: 500, body: { error: { message: 'no scripted response' } } };
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(next.status ?? 200, { 'content-type': 'application/json' });
        res.end(next.raw ?? JSON.stringify(next.body));
      };
      if (next.delayMs) setTimeout(send, next.delayMs).unref();
      else send();
    });
  });
  baseUrl = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  respond(...responses: Scripted[]): void {
    this.script.push(...responses);
  }
  last(): Recorded {
    return this.requests.at(-1)!;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const lookupOrder: PlannerTool = {
  name: 'lookup_order',
  description: 'Look up the status of an order by its order number',
  parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{5,10}$' } }, required: ['order_id'] },
};

const buildInput = (overrides: Partial<PlannerInput> = {}): PlannerInput => ({
  instructions: 'You are the support agent of Acme Outfitters.',
  channel: 'chat',
  locale: 'en-US',
  context: { customer_id: 'cus_42' },
  transcript: [
    { role: 'agent', content: 'Hi! How can I help?' },
    { role: 'customer', content: 'Hello.' },
  ],
  message: 'Where is my order 12345?',
  passages: [
    { ref: 1, sourceId: 'src_1', title: 'Order tracking', text: 'Track your order with the link in your confirmation email.', url: null, score: 0.7 },
    { ref: 2, sourceId: 'src_2', title: 'Refunds', text: 'Refunds take 14 days.', url: null, score: 0.4 },
  ],
  tools: [lookupOrder],
  toolResults: [],
  retrievalRequired: true,
  ...overrides,
});

const shipped: PlannerToolResult = {
  callId: 'call_abc',
  tool: 'lookup_order',
  arguments: { order_id: '12345' },
  status: 'ok',
  result: { status: 'shipped', carrier: 'DHL' },
};

async function expectPlannerError(p: Promise<unknown>, check: (e: AppError) => void): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof AppError, `expected an AppError, got ${String(e)}`);
    assert.equal(e.code, 'planner_unavailable');
    assert.equal(e.status, 502);
    assert.equal(e.retryable, true);
    check(e);
    return true;
  });
}

const asReply = (d: PlannerDecision) => {
  assert.equal(d.type, 'reply', JSON.stringify(d));
  return d as Extract<PlannerDecision, { type: 'reply' }>;
};

describe('openai planner against a chat-completions server', () => {
  const provider = new FakeProvider();
  let planner: OpenAiPlanner;
  before(async () => {
    await provider.start();
    planner = new OpenAiPlanner({ baseUrl: `${provider.baseUrl}/v1`, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 2000 });
  });
  after(() => provider.stop());

  it('round-trips a tool call: tool_calls first, then a cited reply from the tool result', async () => {
    provider.respond({
      body: {
        choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"12345"}' } }] } }],
        usage: { prompt_tokens: 321, completion_tokens: 17 },
      },
    });
    const first = await planner.plan(buildInput());
    assert.deepEqual(first, { type: 'tool_calls', calls: [{ tool: 'lookup_order', arguments: { order_id: '12345' } }], usage: { input_tokens: 321, output_tokens: 17 } });

    const req = provider.last();
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer sk-test');
    assert.equal(req.body.model, 'gpt-test');
    assert.deepEqual(
      req.body.tools.map((t: any) => [t.type, t.function.name]),
      [['function', 'lookup_order'], ['function', 'handoff_to_human']],
    );
    assert.deepEqual(req.body.tools[0].function.parameters, lookupOrder.parameters);
    assert.deepEqual(req.body.tools[1].function.parameters.properties.reason.enum.includes('customer_requested'), true);
    const [system, ...rest] = req.body.messages;
    assert.equal(system.role, 'system');
    assert.match(system.content, /^You are the support agent of Acme Outfitters\./);
    assert.match(system.content, /\[1\] Order tracking: Track your order/);
    assert.match(system.content, /\[2\] Refunds: Refunds take 14 days\./);
    assert.match(system.content, /"customer_id":"cus_42"/);
    assert.match(system.content, /cite it with its number in square brackets/);
    assert.deepEqual(rest, [
      { role: 'assistant', content: 'Hi! How can I help?' },
      { role: 'user', content: 'Hello.' },
      { role: 'user', content: 'Where is my order 12345?' },
    ]);

    provider.respond({
      body: {
        choices: [{ message: { role: 'assistant', content: 'Your order has shipped with DHL [1]. Track it with the link in your confirmation email [1].' } }],
        usage: { prompt_tokens: 402, completion_tokens: 25 },
      },
    });
    const second = asReply(await planner.plan(buildInput({ toolResults: [shipped] })));
    assert.equal(second.content, 'Your order has shipped with DHL. Track it with the link in your confirmation email.');
    assert.deepEqual(second.citations, [1]);
    assert.equal(second.groundedInTools, true);
    assert.equal(second.confidence, 0.8);
    assert.deepEqual(second.usage, { input_tokens: 402, output_tokens: 25 });
    const messages = provider.last().body.messages;
    assert.deepEqual(messages.slice(-2), [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"12345"}' } }] },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"status":"shipped","carrier":"DHL"}' },
    ]);
  });

  it('maps a plain reply: confidence from the cited passage, 0.3 uncited; plain text on sms', async () => {
    provider.respond(
      { body: { choices: [{ message: { content: 'Refunds take 14 days [2].' } }], usage: { prompt_tokens: 200, completion_tokens: 8 } } },
      { body: { choices: [{ message: { content: '**Hello!** How can I help?' } }], usage: { prompt_tokens: 150, completion_tokens: 6 } } },
    );
    const cited = asReply(await planner.plan(buildInput({ message: 'How long do refunds take?' })));
    assert.deepEqual([cited.content, cited.citations, cited.confidence, cited.groundedInTools], ['Refunds take 14 days.', [2], 0.4, false]);
    const plain = asReply(await planner.plan(buildInput({ message: 'Hi', channel: 'sms' })));
    assert.deepEqual([plain.content, plain.citations, plain.confidence], ['Hello! How can I help?', [], 0.3]);
    assert.match(provider.last().body.messages[0].content, /This is an SMS/);
  });

  it('maps the handoff pseudo-tool to a handoff, and invalid argument JSON to {}', async () => {
    provider.respond(
      {
        body: {
          choices: [{ message: { content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'handoff_to_human', arguments: JSON.stringify({ reason: 'customer_requested', summary: 'Wants a person about order 12345.', suggested_reply: 'Connecting you now [1].' }) } }] } }],
          usage: { prompt_tokens: 100, completion_tokens: 30 },
        },
      },
      { body: { choices: [{ message: { content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id": 12' } }] } }], usage: { prompt_tokens: 90, completion_tokens: 9 } } },
    );
    assert.deepEqual(await planner.plan(buildInput({ message: 'Let me talk to someone' })), {
      type: 'handoff',
      reason: 'customer_requested',
      summary: 'Wants a person about order 12345.',
      suggestedReply: 'Connecting you now.',
      usage: { input_tokens: 100, output_tokens: 30 },
    });
    assert.deepEqual(await planner.plan(buildInput()), { type: 'tool_calls', calls: [{ tool: 'lookup_order', arguments: {} }], usage: { input_tokens: 90, output_tokens: 9 } });
  });

  it('hands off a rejected approval without calling the model', async () => {
    const count = provider.requests.length;
    const d = await planner.plan(buildInput({ toolResults: [{ ...shipped, status: 'rejected', result: undefined }] }));
    assert.equal(d.type, 'handoff');
    assert.equal((d as Extract<PlannerDecision, { type: 'handoff' }>).reason, 'approval_rejected');
    assert.deepEqual(d.usage, { input_tokens: 0, output_tokens: 0 });
    assert.equal(provider.requests.length, count);
  });

  it('turns provider errors into planner_unavailable: 500, 401, malformed JSON, a reply without choices, a timeout', async () => {
    provider.respond({ status: 500, body: { error: { message: 'The server had an error' } } });
    await expectPlannerError(planner.plan(buildInput()), (e) => {
      assert.match(e.message, /HTTP 500: The server had an error/);
      assert.deepEqual(e.details, { provider: 'openai', reason: 'http_status', status: 500, retryable: true });
    });
    provider.respond({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    await expectPlannerError(planner.plan(buildInput()), (e) => assert.equal((e.details as { retryable: boolean }).retryable, false));
    provider.respond({ raw: '{"choices": [' });
    await expectPlannerError(planner.plan(buildInput()), (e) => assert.match(e.message, /malformed JSON/));
    provider.respond({ body: { object: 'chat.completion' } });
    await expectPlannerError(planner.plan(buildInput()), (e) => assert.match(e.message, /without a choice/));
    const slow = new OpenAiPlanner({ baseUrl: `${provider.baseUrl}/v1`, model: 'gpt-test', timeoutMs: 100 });
    provider.respond({ delayMs: 1000, body: { choices: [{ message: { content: 'late' } }] } });
    await expectPlannerError(slow.plan(buildInput()), (e) => assert.match(e.message, /did not answer within 100 ms/));
    assert.equal(provider.last().headers.authorization, undefined, 'no key, no Authorization header');
  });

  it('is what the factory builds for provider openai', async () => {
    const built = createPlanner({ provider: 'openai', baseUrl: `${provider.baseUrl}/v1`, model: 'gpt-test', timeoutMs: 2000 });
    assert.ok(built instanceof OpenAiPlanner);
    provider.respond({ body: { choices: [{ message: { content: 'Track it with the link [1].' } }], usage: { prompt_tokens: 50, completion_tokens: 7 } } });
    const d = asReply(await built.plan(buildInput()));
    assert.deepEqual([d.citations, d.confidence, d.usage], [[1], 0.7, { input_tokens: 50, output_tokens: 7 }]);
    assert.ok(createPlanner({ provider: 'local', timeoutMs: 1000 }) instanceof LocalPlanner);
    assert.ok(createPlanner({ provider: 'anthropic', model: 'claude-test', timeoutMs: 1000 }) instanceof AnthropicPlanner);
    assert.throws(() => createPlanner({ provider: 'openai', timeoutMs: 1000 }), /needs a model/);
  });
});

describe('anthropic planner against a Messages API server', () => {
  const provider = new FakeProvider();
  let planner: AnthropicPlanner;
  before(async () => {
    await provider.start();
    planner = new AnthropicPlanner({ baseUrl: provider.baseUrl, apiKey: 'ak-test', model: 'claude-test', timeoutMs: 2000 });
  });
  after(() => provider.stop());

  it('round-trips a tool call with tool_use and tool_result blocks, then a cited reply', async () => {
    provider.respond({
      body: {
        content: [
          { type: 'text', text: 'Let me check that order.' },
          { type: 'tool_use', id: 'toolu_01', name: 'lookup_order', input: { order_id: '12345' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 410, output_tokens: 33 },
      },
    });
    const first = await planner.plan(buildInput());
    assert.deepEqual(first, { type: 'tool_calls', calls: [{ tool: 'lookup_order', arguments: { order_id: '12345' } }], usage: { input_tokens: 410, output_tokens: 33 } });

    const req = provider.last();
    assert.equal(req.url, '/v1/messages');
    assert.equal(req.headers['x-api-key'], 'ak-test');
    assert.equal(req.headers['anthropic-version'], '2023-06-01');
    assert.equal(req.headers.authorization, undefined);
    assert.equal(req.body.model, 'claude-test');
    assert.equal(req.body.max_tokens, 1024);
    assert.match(req.body.system, /\[1\] Order tracking: Track your order/);
    assert.deepEqual(
      req.body.tools.map((t: any) => [t.name, t.input_schema.type]),
      [['lookup_order', 'object'], ['handoff_to_human', 'object']],
    );
    assert.deepEqual(req.body.tools[0].input_schema, lookupOrder.parameters);
    // Roles alternate and start with the user: the opening agent turn gets a user turn before it, and the
    // last customer turn and the message are merged.
    assert.deepEqual(req.body.messages, [
      { role: 'user', content: '(The conversation so far follows.)' },
      { role: 'assistant', content: 'Hi! How can I help?' },
      { role: 'user', content: 'Hello.\n\nWhere is my order 12345?' },
    ]);

    provider.respond({
      body: {
        content: [{ type: 'text', text: 'It shipped with DHL. You can follow it with the link in your confirmation email [1].' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 480, output_tokens: 21, cache_read_input_tokens: 20 },
      },
    });
    const second = asReply(await planner.plan(buildInput({ toolResults: [shipped] })));
    assert.equal(second.content, 'It shipped with DHL. You can follow it with the link in your confirmation email.');
    assert.deepEqual([second.citations, second.groundedInTools, second.confidence], [[1], true, 0.8]);
    assert.deepEqual(second.usage, { input_tokens: 500, output_tokens: 21 });
    assert.deepEqual(provider.last().body.messages.slice(-2), [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_abc', name: 'lookup_order', input: { order_id: '12345' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc', content: '{"status":"shipped","carrier":"DHL"}' }] },
    ]);
  });

  it('marks failed tool results as errors and maps a handoff tool_use', async () => {
    provider.respond({
      body: {
        content: [{ type: 'tool_use', id: 'toolu_02', name: 'handoff_to_human', input: { reason: 'tool_failed', summary: 'Order lookup timed out.', suggested_reply: 'A colleague will follow up shortly.' } }],
        usage: { input_tokens: 300, output_tokens: 40 },
      },
    });
    const d = await planner.plan(buildInput({ toolResults: [{ ...shipped, status: 'timed_out', result: undefined }] }));
    assert.deepEqual(d, { type: 'handoff', reason: 'tool_failed', summary: 'Order lookup timed out.', suggestedReply: 'A colleague will follow up shortly.', usage: { input_tokens: 300, output_tokens: 40 } });
    assert.deepEqual(provider.last().body.messages.at(-1).content, [{ type: 'tool_result', tool_use_id: 'call_abc', content: '{"status":"timed_out"}', is_error: true }]);
  });

  it('turns provider errors into planner_unavailable: 529 overloaded, a body without content', async () => {
    provider.respond({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    await expectPlannerError(planner.plan(buildInput()), (e) => assert.match(e.message, /anthropic planner answered HTTP 529: Overloaded/));
    provider.respond({ body: { type: 'message' } });
    await expectPlannerError(planner.plan(buildInput()), (e) => assert.match(e.message, /without content/));
  });
});
