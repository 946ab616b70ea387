import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ask, openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { consoleRequest, consoleSession, signInToConsole } from '../support/console';
import { openEventStream } from '../support/sse';
import { useTestStack } from '../support/stack';

/**
 * The support team's live inbox: the inbox stream (new conversations, messages and handoffs without a
 * reload), unread per teammate, claim and assign, internal notes (never in the customer's view), saved
 * replies with variables, transcript search, the handoff queue oldest first, and every one of them kept
 * to its account and mode.
 */
const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const handsOffOnRefunds = { guardrails: { restricted_topics: ['refund'], restricted_topic_action: 'handoff' as const } };

let n = 0;
/** A console user of the fixture's account, signed in with email and password. */
async function teammate(f: AgentFixture, name: string) {
  const email = `${name}.${++n}@shop.test`;
  const user = await ctx.stack.services.consoleSessions.createUser({ accountId: f.accountId, email, password: 'correct horse battery' });
  const res = await consoleRequest(ctx.stack.baseUrl, '/console/sign-in', { form: { email, password: 'correct horse battery' }, headers: { origin: ctx.stack.baseUrl } });
  assert.equal(res.status, 303, res.text);
  return { id: user.id, email, session: await consoleSession(ctx.stack.baseUrl, res.cookie!) };
}

const rowOf = (page: string, id: string) => new RegExp(`<tr class="([^"]*)" data-conversation="${id}"`).exec(page);

describe('the live inbox', () => {
  before(async () => {
    await ctx.stack.services.conversationEvents.listen();
  });
  after(async () => {
    await ctx.stack.services.conversationEvents.close();
  });

  it('streams a handoff to an open inbox (with an alert), but nothing of another account', async () => {
    const f = await seedAgent(ctx.stack, handsOffOnRefunds);
    const other = await seedAgent(ctx.stack, handsOffOnRefunds);
    const ana = await teammate(f, 'ana');
    const stream = await openEventStream(`${ctx.stack.baseUrl}/console/inbox/events?tab=queue&since=${encodeURIComponent(new Date().toISOString())}`, { cookie: ana.session.cookie });
    assert.equal(stream.status, 200);
    try {
      // Another account's handoff first: it never reaches this stream.
      await ask(other, await openConversation(other), 'I want a refund now');
      const cnv = await openConversation(f, { customer: { name: 'Mia Customer', email: 'mia@example.com' } });
      await ask(f, cnv, 'I want a refund for order 12');
      const seen: any[] = [];
      for (;;) {
        const e = await stream.next(30_000);
        assert.ok(e, 'the stream stays open');
        seen.push(e);
        if (e.event === 'inbox.conversation' && e.data.id === cnv && e.data.status === 'handed_off') break;
      }
      const events = seen.filter((e) => e.event === 'inbox.conversation');
      assert.ok(events.every((e) => e.data.id === cnv), `only this account's conversation: ${JSON.stringify(events.map((e) => e.data.id))}`);
      const last = events.at(-1)!.data;
      assert.equal(last.in_view, true, 'it belongs in the handoff queue tab');
      assert.match(last.html, /Mia Customer/);
      assert.match(last.html, /data-unread/);
      assert.ok(events.some((e) => e.data.alert === true), 'the handoff alerts the team');
      assert.match(last.title, /Mia Customer needs the team/);
      const counts = await stream.until('inbox.counts', 10_000);
      assert.equal(counts.at(-1)!.data.queue, 1);

      // Another account's key cannot read this account's stream: its own session sees its own conversations only.
      const page = await ana.session.get('/console/inbox?tab=queue');
      assert.ok(rowOf(page.text, cnv));
      const otherSession = await signInToConsole(ctx.stack.baseUrl, other.apiKey);
      assert.equal(rowOf((await otherSession.get('/console/inbox?tab=queue')).text, cnv), null);
    } finally {
      stream.close();
    }
  });

  it('keeps unread per teammate, a key sign-in as one shared reader; claim and assign stay in the account', async () => {
    const f = await seedAgent(ctx.stack, handsOffOnRefunds);
    const other = await seedAgent(ctx.stack);
    const ana = await teammate(f, 'ana');
    const ben = await teammate(f, 'ben');
    const stranger = await teammate(other, 'eve');
    const cnv = await openConversation(f, { customer: { name: 'Leo' } });
    await ask(f, cnv, 'I need a refund please');

    const unreadFor = async (s: typeof ana.session) => /unread/.test(rowOf((await s.get('/console/inbox')).text, cnv)?.[1] ?? 'missing');
    assert.equal(await unreadFor(ana.session), true);
    assert.equal((await ana.session.get(`/console/inbox/${cnv}`)).status, 200);
    assert.equal(await unreadFor(ana.session), false, 'read by Ana once she opened it');
    assert.equal(await unreadFor(ben.session), true, 'still unread for Ben');
    const key = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    assert.equal(await unreadFor(key), true, 'and for the key sign-in');

    // The customer writes again: unread for Ana again.
    await ask(f, cnv, 'Hello? Anyone?');
    assert.equal(await unreadFor(ana.session), true);

    // Ana claims it: in her Mine tab, not in Ben's; Ben's inbox shows the assignee.
    assert.equal((await ana.session.post(`/console/inbox/${cnv}/claim`)).status, 303);
    assert.ok(rowOf((await ana.session.get('/console/inbox?tab=mine')).text, cnv));
    assert.equal(rowOf((await ben.session.get('/console/inbox?tab=mine')).text, cnv), null);
    assert.match((await ben.session.get('/console/inbox')).text, new RegExp(`data-conversation="${cnv}"[\\s\\S]*?<td data-assignee>${ana.email.replace('.', '\\.')}</td>`));
    // A key sign-in is shared: it cannot claim.
    assert.equal((await key.post(`/console/inbox/${cnv}/claim`)).status, 422);

    // Assign to Ben; another account's user is refused, as is another account's conversation.
    assert.equal((await ana.session.post(`/console/inbox/${cnv}/assign`, { user_id: ben.id })).status, 303);
    assert.ok(rowOf((await ben.session.get('/console/inbox?tab=mine')).text, cnv));
    assert.equal((await ana.session.post(`/console/inbox/${cnv}/assign`, { user_id: stranger.id })).status, 422);
    assert.equal((await stranger.session.post(`/console/inbox/${cnv}/assign`, { user_id: stranger.id })).status, 404);
    assert.equal((await stranger.session.post(`/console/inbox/${cnv}/claim`)).status, 404);
    assert.ok(rowOf((await ben.session.get('/console/inbox?tab=mine')).text, cnv), 'still Ben\'s');
  });

  it('internal notes: in the console and for secret keys, never in the transcript, the stream or a list', async () => {
    const f = await seedAgent(ctx.stack);
    const other = await seedAgent(ctx.stack);
    const ana = await teammate(f, 'ana');
    const cnv = await openConversation(f);
    await ask(f, cnv, 'How do I reset my password?');

    assert.equal((await ana.session.post(`/console/inbox/${cnv}/notes`, { body: 'VIP: be quick' })).status, 303);
    const api = await f.call('POST', `/v1/conversations/${cnv}/notes`, { body: 'Card 4242 4242 4242 4242 on file' });
    assert.equal(api.status, 201, JSON.stringify(api.body));
    assert.equal(api.body.object, 'conversation.note');
    assert.equal(api.body.author.type, 'api_key');
    assert.doesNotMatch(api.body.body, /4242 4242 4242 4242/, 'redacted like a transcript');

    const got = await f.call('GET', `/v1/conversations/${cnv}`);
    assert.deepEqual(got.body.notes.map((x: any) => [x.body, x.author.type, x.author.name]), [['VIP: be quick', 'console_user', ana.email], [api.body.body, 'api_key', `API key ${api.body.author.id}`]]);
    const messages = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.doesNotMatch(JSON.stringify(messages.body), /VIP: be quick/);
    const list = await f.call('GET', '/v1/conversations');
    assert.equal(list.body.data.find((c: any) => c.id === cnv).notes, undefined);
    const events = await openEventStream(`${ctx.stack.baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${f.apiKey}` });
    const sent = await events.until('conversation.message');
    events.close();
    assert.doesNotMatch(JSON.stringify(sent), /VIP/);
    assert.match((await ana.session.get(`/console/inbox/${cnv}`)).text, /VIP: be quick/);

    // Another account: 404 for both, and nothing leaks.
    assert.equal((await other.call('POST', `/v1/conversations/${cnv}/notes`, { body: 'x' })).status, 404);
    assert.equal((await other.call('GET', `/v1/conversations/${cnv}`)).status, 404);
    // Bad input changes nothing.
    assert.equal((await f.call('POST', `/v1/conversations/${cnv}/notes`, { body: '' })).status, 400);
    assert.equal((await f.call('POST', `/v1/conversations/${cnv}/notes`, { body: 'x'.repeat(5001) })).status, 400);
    assert.equal((await f.call('GET', `/v1/conversations/${cnv}`)).body.notes.length, 2);
  });

  it('saved replies: CRUD per account and mode, variables checked, filled in for a conversation', async () => {
    const f = await seedAgent(ctx.stack);
    const other = await seedAgent(ctx.stack);
    const ana = await teammate(f, 'ana');
    const bad = await f.call('POST', '/v1/saved_replies', { name: 'Oops', content: 'Hi {{customer.nmae}}' });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    const created = await f.call('POST', '/v1/saved_replies', { name: 'Greeting', content: 'Hi {{customer.name|there}}, {{agent.name}} here. We wrote to {{customer.email}}.' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.id, /^srep_/);
    assert.deepEqual((await f.call('GET', '/v1/saved_replies')).body.data.map((r: any) => r.name), ['Greeting']);
    assert.equal((await f.call('POST', `/v1/saved_replies/${created.body.id}`, { name: 'Hello' })).body.name, 'Hello');
    assert.equal((await other.call('GET', `/v1/saved_replies/${created.body.id}`)).status, 404);
    assert.equal((await other.call('DELETE', `/v1/saved_replies/${created.body.id}`)).status, 404);
    assert.deepEqual((await other.call('GET', '/v1/saved_replies')).body.data, []);

    const cnv = await openConversation(f, { customer: { email: 'kim@example.com' } });
    const rendered = await ana.session.get(`/console/inbox/${cnv}/saved-replies/${created.body.id}`);
    assert.equal(JSON.parse(rendered.text).content, `Hi there, ${ana.email} here. We wrote to kim@example.com.`);
    const otherCnv = await openConversation(other);
    assert.equal((await ana.session.get(`/console/inbox/${otherCnv}/saved-replies/${created.body.id}`)).status, 404);

    assert.equal((await f.call('DELETE', `/v1/saved_replies/${created.body.id}`)).body.deleted, true);
    assert.equal((await f.call('GET', `/v1/saved_replies/${created.body.id}`)).status, 404);
  });

  it('search finds transcripts by words (prefixes) in this account and mode only; the queue is oldest waiting first', async () => {
    const f = await seedAgent(ctx.stack, handsOffOnRefunds);
    const other = await seedAgent(ctx.stack);
    const live = await seedAgent(ctx.stack, {}, undefined, 'live');
    const key = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    // Written without a run (what the agent does with them is not the point here).
    const say = (g: AgentFixture, cnv: string, content: string) => g.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'customer', content, trigger_run: false });
    const a = await openConversation(f);
    await say(f, a, 'My parcel with the zebrawood table never arrived');
    const b = await openConversation(f);
    await say(f, b, 'How do I reset my password?');
    await say(other, await openConversation(other), 'zebrawood in another account');
    await say(live, await openConversation(live), 'zebrawood in live mode');

    const found = (await key.get('/console/inbox?q=zebrawo')).text;
    assert.ok(rowOf(found, a), 'a prefix finds it');
    assert.equal(rowOf(found, b), null);
    assert.equal([...found.matchAll(/data-conversation="/g)].length, 1, 'nothing of another account or mode');
    assert.match(found, /zebrawood table/, 'the matching message is the preview');
    assert.ok(rowOf((await key.get('/console/inbox?q=' + encodeURIComponent('zebrawood & | !parcel'))).text, a), 'operators are just words');

    // The handoff queue: the customer waiting longest first.
    const first = await openConversation(f);
    await ask(f, first, 'refund please, first');
    const second = await openConversation(f);
    await ask(f, second, 'refund please, second');
    const queue = (await key.get('/console/inbox?tab=queue')).text;
    assert.ok(queue.indexOf(`data-conversation="${first}"`) < queue.indexOf(`data-conversation="${second}"`));
    assert.match(queue, /data-count="queue">2</);
  });

  it('a conversation waiting for an approval is in the handoff queue with its own badge', async () => {
    const f = await seedAgent(ctx.stack);
    const key = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const cnv = await openConversation(f);
    const asked = await ask(f, cnv, 'How do I reset my password?');
    assert.equal(rowOf((await key.get('/console/inbox?tab=queue')).text, cnv), null, 'answered: not in the queue');
    // The run's tool call waits for a person (as a tool that requires approval leaves it).
    const now = new Date();
    await ctx.stack.database.db.insertInto('run_tool_calls').values({ id: `call_inbox${Date.now()}`, run_id: asked.run.id, seq: 99, tool: 'issue_refund', arguments: JSON.stringify({}), status: 'awaiting_approval', result: null, error: null, latency_ms: null, expires_at: null, decision_note: null, created_at: now, updated_at: now }).execute();
    const queue = (await key.get('/console/inbox?tab=queue')).text;
    assert.ok(rowOf(queue, cnv), 'in the queue while the approval waits');
    assert.match(queue, new RegExp(`data-conversation="${cnv}"[\\s\\S]*?data-approval-badge`));
    assert.match(queue, /data-count="queue">1</);
  });

  it('a conversation opened for the team (a number without an agent) emits conversation.handoff', async () => {
    const f = await seedAgent(ctx.stack);
    const scope = { accountId: f.accountId, livemode: f.livemode };
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ ...scope, number: '+447400770001' });
    await ctx.stack.services.inboundSms.onInbound({ carrier: 'sandbox', carrierMessageId: 'mo-inbox-live-1', from: '+447400770002', to: '+447400770001', body: 'Open on Sunday?', receivedAt: new Date(), sandbox: true });
    const events = await f.call('GET', '/v1/events?type=conversation.handoff');
    assert.equal(events.body.data.length, 1, JSON.stringify(events.body));
    assert.equal(events.body.data[0].data.agent_id, null);
    assert.equal(events.body.data[0].data.run_id, null);
  });
});
