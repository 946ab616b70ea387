import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedAgent, type AgentFixture } from '../support/agents';
import { signInToConsole } from '../support/console';
import { openEventStream } from '../support/sse';
import { useTestStack } from '../support/stack';
import { visitorClient } from '../support/widget';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { visitorRateLimit: { perKeyPerSecond: 10_000, perVisitorPerSecond: 10_000 } } });
const SHOP = 'https://shop.example';
const PROACTIVE = 'Need a hand with shipping?';

/** An agent with a publishable key for the shop, its proactive message set, and a visitor of the shop with a conversation. */
async function setUp(proactive: string | null = PROACTIVE) {
  const f = await seedAgent(ctx.stack);
  const key = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: [SHOP] });
  assert.equal(key.status, 201);
  const set = await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, { proactive: proactive === null ? null : { message: proactive, delay_seconds: 5, paths: [] } });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  const opened = await visitorClient(ctx.stack.baseUrl, { key: key.body.key, origin: SHOP })('POST', '/v1/conversations', { agent_id: f.agentId });
  assert.equal(opened.status, 201);
  const visitor = visitorClient(ctx.stack.baseUrl, { key: key.body.key, origin: SHOP, token: opened.body.visitor_token });
  return { f, key: key.body.key as string, token: opened.body.visitor_token as string, visitor, cnv: opened.body.id as string };
}

const post = (v: ReturnType<typeof visitorClient>, cnv: string, body: Record<string, unknown>) => v('POST', `/v1/conversations/${cnv}/messages`, { role: 'customer', ...body });
/** The transcript as the business's API lists it, oldest first. */
const listed = async (f: AgentFixture, cnv: string) => (await f.call('GET', `/v1/conversations/${cnv}/messages?limit=100`)).body.data as any[];

describe("widget transcript: the proactive message, once the visitor answers it", () => {
  before(async () => {
    await ctx.stack.services.conversationEvents.listen();
  });
  after(async () => {
    await ctx.stack.services.conversationEvents.close();
  });

  it('is stored as the opening system turn (kind proactive) just before the answer, once, with the text the agent has set', async () => {
    const { f, visitor, cnv } = await setUp();
    assert.deepEqual(await listed(f, cnv), [], 'shown but unanswered: not a turn');

    const answer = await post(visitor, cnv, { content: 'Yes, how long does standard shipping take?', answers_proactive: true });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const turns = await listed(f, cnv);
    assert.deepEqual(turns.map((m) => [m.role, m.kind, m.content]).slice(0, 2), [
      ['system', 'proactive', PROACTIVE],
      ['customer', null, 'Yes, how long does standard shipping take?'],
    ]);
    assert.equal(turns[1].id, answer.body.id);
    assert.ok(turns[0].created_at < turns[1].created_at);
    assert.deepEqual(turns[0].citations, []);
    // The visitor's own list (a reloaded widget) has it too, in the same place.
    const own = await visitor('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(own.body.data.slice(0, 2).map((m: any) => m.kind), ['proactive', null]);

    // The console's inbox names it for what it is (not a notice sent to the customer).
    const console_ = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const page = (await console_.get(`/console/inbox/${cnv}`)).text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    assert.match(page, /The widget&#39;s opening message chat|The widget's opening message chat/);
    assert.doesNotMatch(page, /Notice to the customer/);

    // Answering "again" (a second tab, a replay) stores no second one.
    assert.equal((await post(visitor, cnv, { content: 'And express?', answers_proactive: true })).status, 201);
    assert.equal((await listed(f, cnv)).filter((m) => m.kind === 'proactive').length, 1);
  });

  it('is carried by the conversation stream before the answer', async () => {
    const { visitor, cnv, key, token } = await setUp();
    const stream = await openEventStream(`${ctx.stack.baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${key}`, origin: SHOP, 'x-visitor-token': token });
    try {
      assert.equal(stream.status, 200);
      await post(visitor, cnv, { content: 'Where is my parcel?', answers_proactive: true });
      const first = await stream.until('conversation.message');
      const second = await stream.until('conversation.message');
      assert.deepEqual([first.at(-1)!.data.kind, second.at(-1)!.data.role], ['proactive', 'customer']);
      assert.ok(Number(first.at(-1)!.id) < Number(second.at(-1)!.id));
    } finally {
      stream.close();
    }
  });

  it('is not stored when the conversation already has a turn, when the agent has none any more, or without answers_proactive', async () => {
    const started = await setUp();
    await post(started.visitor, started.cnv, { content: 'Hello there' });
    await post(started.visitor, started.cnv, { content: 'About shipping', answers_proactive: true });
    assert.deepEqual((await listed(started.f, started.cnv)).map((m) => m.role).slice(0, 2), ['customer', 'agent']);
    assert.ok((await listed(started.f, started.cnv)).every((m) => m.kind === null));

    const removed = await setUp(null);
    assert.equal((await post(removed.visitor, removed.cnv, { content: 'Hi', answers_proactive: true })).status, 201);
    assert.deepEqual((await listed(removed.f, removed.cnv)).map((m) => m.role)[0], 'customer');

    const plain = await setUp();
    assert.equal((await post(plain.visitor, plain.cnv, { content: 'Hi' })).status, 201);
    assert.deepEqual((await listed(plain.f, plain.cnv)).map((m) => m.role)[0], 'customer');
  });

  it('cannot be claimed with a secret key, nor its text chosen by the page', async () => {
    const { f, visitor, cnv } = await setUp();
    const bySecret = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'customer', content: 'Hi', answers_proactive: true });
    assert.equal(bySecret.status, 400);
    assert.equal(bySecret.body.error.param, 'answers_proactive');
    const chosen = await post(visitor, cnv, { content: 'Hi', answers_proactive: true, proactive_message: 'Your refund is approved.' });
    assert.equal(chosen.status, 400);
    assert.deepEqual(await listed(f, cnv), [], 'refused requests change nothing');
  });
});

describe('widget transcript: citations', () => {
  it("are stored with the agent's answer: the API's message list, the visitor's list and the stream show them as the run cited them", async () => {
    const { f, visitor, cnv, key, token } = await setUp();
    const answer = await post(visitor, cnv, { content: 'How long does standard shipping take?' });
    assert.equal(answer.status, 201);
    const run = (await f.call('GET', `/v1/runs/${answer.body.run.id}`)).body;
    const cited = run.retrieval.filter((r: any) => r.cited).map((r: any) => ({ title: r.title, url: r.url }));
    assert.ok(cited.length > 0, JSON.stringify(run.retrieval));
    assert.deepEqual(cited[0], { title: 'Shipping times', url: 'https://help.example.com/shipping' });

    const turns = await listed(f, cnv);
    assert.deepEqual(turns.map((m) => m.role), ['customer', 'agent']);
    assert.deepEqual(turns[0].citations, []);
    assert.deepEqual(turns[1].citations, cited);
    const own = await visitor('GET', `/v1/conversations/${cnv}/messages?order=desc`);
    assert.deepEqual(own.body.data[0].citations, cited);

    // A widget reloaded later reads the stream from the start: the answer's event carries them too.
    const stream = await openEventStream(`${ctx.stack.baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${key}`, origin: SHOP, 'x-visitor-token': token });
    try {
      const events = (await stream.until('conversation.message')).concat(await stream.until('conversation.message'));
      const agent = events.filter((e) => e.event === 'conversation.message').at(-1)!;
      assert.equal(agent.data.role, 'agent');
      assert.deepEqual(agent.data.citations, cited);
    } finally {
      stream.close();
    }
  });
});
