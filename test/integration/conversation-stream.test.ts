import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ask, openConversation, seedAgent } from '../support/agents';
import { TEST_DATABASE_URL } from '../support/config';
import { signInToConsole } from '../support/console';
import { openEventStream } from '../support/sse';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });

/**
 * GET /v1/conversations/{id}/events: every message as it is written (whoever writes it, in whichever
 * process), handoff and close, typing; ids numbered per conversation so Last-Event-ID resumes exactly.
 */
describe('conversation stream', () => {
  before(async () => {
    await ctx.stack.services.conversationEvents.listen();
  });
  after(async () => {
    await ctx.stack.services.conversationEvents.close();
  });

  const streamOf = (f: { apiKey: string }, cnv: string, headers: Record<string, string> = {}) =>
    openEventStream(`${ctx.stack.baseUrl}/v1/conversations/${cnv}/events`, { authorization: `Bearer ${f.apiKey}`, ...headers });

  it('carries the customer message, the agent reply written by the worker, a human reply and the close, then ends', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const stream = await streamOf(f, cnv);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);

    const posted = await ask(f, cnv, 'How long does standard shipping take?');
    const untilAgent = (await stream.until('conversation.message')).concat(await stream.until('conversation.message'));
    const messages = untilAgent.filter((e) => e.event === 'conversation.message');
    assert.deepEqual(messages.map((e) => e.data.role), ['customer', 'agent']);
    assert.equal(messages[0]!.data.id, posted.id);
    assert.equal(messages[1]!.data.content, posted.run.reply.content);
    // The local planner answers at once: its reply is streamed sentence by sentence before the message.
    const deltas = untilAgent.filter((e) => e.event === 'reply.delta');
    assert.ok(deltas.length >= 1);
    assert.equal(deltas.map((d) => d.data.text).join(''), posted.run.reply.content);
    assert.ok(deltas.every((d) => d.data.run_id === posted.run.id));

    const human = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'A colleague here: anything else?' });
    assert.equal(human.status, 201);
    const humanEvent = (await stream.until('conversation.message')).at(-1)!;
    assert.equal(humanEvent.data.role, 'human');
    assert.equal(humanEvent.data.content, 'A colleague here: anything else?');

    assert.equal((await f.call('POST', `/v1/conversations/${cnv}/close`)).status, 200);
    const closed = (await stream.until('conversation.closed')).at(-1)!;
    assert.equal(closed.data.status, 'closed');
    assert.equal(await stream.next(5000), undefined, 'the stream ends after conversation.closed');

    // Ids are the conversation's own numbers, in order.
    const ids = [...untilAgent, humanEvent, closed].map((e) => Number(e.id));
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
  });

  it('wakes on a message another process writes (through Postgres, not this process)', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const stream = await streamOf(f, cnv);
    // Another process: its own connection, no code of this one involved in the write.
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      await other.query(`set search_path to "${ctx.stack.database.schema}"`);
      await other.query(
        `insert into conversation_messages (id, account_id, livemode, conversation_id, role, channel, content, attachments)
         values ('msg_elsewhere1', $1, false, $2, 'human', 'chat', 'Written by another process', '[]')`,
        [f.accountId, cnv],
      );
    } finally {
      await other.end();
    }
    const e = (await stream.until('conversation.message', 10_000)).at(-1)!;
    assert.equal(e.data.id, 'msg_elsewhere1');
    assert.equal(e.data.content, 'Written by another process');
    stream.close();
  });

  it('resumes after Last-Event-ID with exactly the events missed meanwhile', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const first = await streamOf(f, cnv);
    await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'one' });
    const seen = (await first.until('conversation.message')).at(-1)!;
    first.close();

    // While disconnected: two more turns and a handoff-free close of nothing; then resume.
    await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'two' });
    await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'customer', content: 'three', trigger_run: false });
    const resumed = await streamOf(f, cnv, { 'Last-Event-ID': seen.id! });
    const a = await resumed.next();
    const b = await resumed.next();
    assert.deepEqual([a?.data.content, b?.data.content], ['two', 'three']);
    assert.deepEqual([Number(a?.id), Number(b?.id)], [Number(seen.id) + 1, Number(seen.id) + 2]);
    await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'four' });
    assert.equal((await resumed.next())?.data.content, 'four', 'then live events, nothing repeated');

    // A fresh stream (no Last-Event-ID) replays the conversation from its first event.
    const fresh = await streamOf(f, cnv);
    const all = [await fresh.next(), await fresh.next(), await fresh.next(), await fresh.next()];
    assert.deepEqual(all.map((e) => e?.data.content), ['one', 'two', 'three', 'four']);
    resumed.close();
    fresh.close();
  });

  it('shows a handoff, and typing by a person in the console without storing it', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const stream = await streamOf(f, cnv);
    await ask(f, cnv, 'Can I bring my parrot to the annual shareholder meeting in Lisbon?');
    const handoff = (await stream.until('conversation.handoff')).at(-1)!;
    assert.equal(handoff.data.status, 'handed_off');
    assert.equal(handoff.data.handoff.reason, 'no_supporting_source');

    // The console's conversation page posts this while a person types a reply (session and CSRF as its forms).
    const desk = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const typed = await desk.post(`/console/inbox/${cnv}/typing`);
    assert.equal(typed.status, 204, typed.text);
    const other = await ctx.stack.newAccount('Another desk');
    const elsewhere = await (await signInToConsole(ctx.stack.baseUrl, other.apiKey)).post(`/console/inbox/${cnv}/typing`);
    assert.equal(elsewhere.status, 404, "another account's console cannot signal typing on it");
    const typing = (await stream.until('typing')).at(-1)!;
    assert.equal(typing.id, undefined, 'typing carries no id: it is not stored and not replayed');
    assert.equal(typing.data.role, 'human');
    const replay = await streamOf(f, cnv);
    const replayed = [];
    for (let e = await replay.next(); e && e.event !== 'conversation.handoff'; e = await replay.next()) replayed.push(e.event);
    assert.ok(!replayed.includes('typing'));
    stream.close();
    replay.close();
  });

  it("answers 404 for another account's conversation, and for an unknown one", async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const other = await ctx.stack.newAccount('Other');
    const res = await streamOf({ apiKey: other.apiKey }, cnv);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.type, 'not_found_error');
    const unknown = await streamOf(f, 'cnv_doesnotexist');
    assert.equal(unknown.status, 404);
  });
});
