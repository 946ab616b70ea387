import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ask, openConversation, seedAgent } from '../support/agents';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });

describe('agent runs over chat', () => {
  it('answers a knowledge question with a grounded reply, citations and confidence, and records the run', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f, { metadata: { ticket: 'T-1' }, customer: { name: 'Ada', locale: 'en' } });
    const posted = await ask(f, cnv, 'How long does standard shipping take?');
    assert.equal(posted.role, 'customer');
    assert.deepEqual(posted.metadata, { ticket: 'T-1' });
    const run = posted.run;
    assert.match(run.id, /^run_/);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.ok(run.reply, JSON.stringify(run));
    assert.match(run.reply.content, /3 to 5 business days/);
    assert.equal(run.handoff, null);
    assert.ok(run.confidence > 0 && run.confidence <= 1, `confidence ${run.confidence}`);
    const cited = run.retrieval.filter((r: any) => r.cited);
    assert.equal(cited[0].title, 'Shipping times');
    assert.equal(cited[0].source, f.knowledgeBaseId);
    assert.match(cited[0].source_id, /^src_/);
    assert.ok(run.usage.input_tokens > 0 && run.usage.output_tokens > 0);
    assert.deepEqual(run.metadata, { ticket: 'T-1' });

    const again = await f.call('GET', `/v1/runs/${run.id}`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.reply, run.reply);
    const transcript = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(transcript.body.data.map((m: any) => m.role), ['customer', 'agent']);
    assert.equal(transcript.body.data[1].content, run.reply.content);
    const desc = await f.call('GET', `/v1/conversations/${cnv}/messages?order=desc`);
    assert.deepEqual(desc.body.data.map((m: any) => m.role), ['agent', 'customer']);
  });

  it('hands off with no_supporting_source when nothing in the knowledge base answers', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Can I bring my parrot to the annual shareholder meeting in Lisbon?');
    assert.equal(run.status, 'completed');
    assert.equal(run.reply, null);
    assert.equal(run.handoff.reason, 'no_supporting_source');
    assert.equal(run.handoff.queue, 'support');
    assert.ok(run.handoff.summary.length > 0);
    const conversation = await f.call('GET', `/v1/conversations/${cnv}`);
    assert.equal(conversation.body.status, 'handed_off');
    assert.equal(conversation.body.handoff.reason, 'no_supporting_source');

    // A customer message while a human holds the conversation starts no run; closing the handoff returns control.
    const held = await ask(f, cnv, 'Hello?');
    assert.equal(held.run, undefined);
    const closed = await f.call('POST', `/v1/conversations/${cnv}/handoff/close`, { note: 'Answered by phone' });
    assert.equal(closed.status, 200);
    assert.equal(closed.body.status, 'active');
    const { run: next } = await ask(f, cnv, 'How do I reset my password?');
    assert.match(next.reply.content, /Settings/);
  });

  it('stops at a restricted topic with a handoff and a guardrail note', async () => {
    const f = await seedAgent(ctx.stack, { guardrails: { restricted_topics: ['legal advice'] } });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'I need legal advice about suing the courier for my refund');
    assert.equal(run.handoff.reason, 'restricted_topic');
    assert.equal(run.reply, null);
    assert.equal(run.guardrail_notes[0].guardrail, 'restricted_topics');
    assert.deepEqual(run.retrieval, []);
  });

  it('refuses draft agents and channels the agent lacks, and closed conversations', async () => {
    const f = await seedAgent(ctx.stack);
    const draft = await ctx.stack.services.agents.createAgent({ accountId: f.accountId, livemode: false, config: { name: 'Draft only' } });
    const notLive = await f.call('POST', '/v1/conversations', { agent_id: draft.id });
    assert.equal(notLive.status, 422);
    assert.equal(notLive.body.error.code, 'agent_not_live');
    const voice = await f.call('POST', '/v1/conversations', { agent_id: f.agentId, channel: 'voice' });
    assert.equal(voice.status, 422);
    assert.equal(voice.body.error.code, 'channel_not_supported');

    const cnv = await openConversation(f, { tags: ['vip'] });
    const listed = await f.call('GET', `/v1/conversations?tag=vip&agent_id=${f.agentId}`);
    assert.deepEqual(listed.body.data.map((c: any) => c.id), [cnv]);
    const human = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Hi, this is Sam from support.' });
    assert.equal(human.status, 201);
    assert.equal(human.body.run, undefined);
    const closed = await f.call('POST', `/v1/conversations/${cnv}/close`);
    assert.equal(closed.body.status, 'closed');
    const late = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'customer', content: 'One more thing' });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'conversation_closed');
    const agents = await f.call('GET', '/v1/agents');
    assert.equal(agents.body.data.length, 2);
    const agent = await f.call('GET', `/v1/agents/${f.agentId}`);
    assert.equal(agent.body.status, 'live');
    assert.equal(agent.body.version, 1);
    assert.deepEqual(agent.body.knowledge_sources, [f.knowledgeBaseId]);
  });

  it('answers two messages posted back to back in order, the second run seeing the first reply', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const [first, second] = await Promise.all([
      ask(f, cnv, 'How long does standard shipping take?'),
      new Promise((r) => setTimeout(r, 5)).then(() => ask(f, cnv, 'How do I reset my password?')),
    ]);
    assert.equal(first.run.status, 'completed');
    assert.equal(second.run.status, 'completed');
    // Concurrent posts land in the transcript in arrival order (which a loaded machine may swap): the
    // runs must answer in that order, each reply after its question, one run at a time.
    const transcript = (await f.call('GET', `/v1/conversations/${cnv}/messages`)).body.data as { role: string; run_id: string }[];
    const asked = transcript.filter((m) => m.role === 'customer').map((m) => m.run_id);
    const answered = transcript.filter((m) => m.role === 'agent').map((m) => m.run_id);
    assert.deepEqual([...asked].sort(), [first.run.id, second.run.id].sort());
    assert.deepEqual(answered, asked, 'replies come in the order the questions arrived');
    for (const id of asked) {
      assert.ok(transcript.findIndex((m) => m.role === 'agent' && m.run_id === id) > transcript.findIndex((m) => m.role === 'customer' && m.run_id === id));
    }
    const runs = await Promise.all(asked.map((id) => ctx.stack.database.db.selectFrom('runs').select(['started_at', 'completed_at']).where('id', '=', id).executeTakeFirstOrThrow()));
    assert.ok(runs[1]!.started_at! >= runs[0]!.completed_at!, 'the later run started after the earlier one finished');
  });

  it('streams the run it triggers with ?stream=true: run.started, reply.delta pieces, run.completed', async () => {
    const f = await seedAgent(ctx.stack);
    const cnv = await openConversation(f);
    const res = await fetch(`${ctx.stack.baseUrl}/v1/conversations/${cnv}/messages?stream=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'customer', content: 'How do I reset my password?' }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await res.text();
    const events = text.split('\n\n').filter((b) => b.includes('event: ')).map((b) => {
      const lines = Object.fromEntries(b.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
      return { id: Number(lines.id), event: lines.event!, data: JSON.parse(lines.data!) };
    });
    assert.equal(events[0]!.event, 'run.started');
    assert.equal(events.at(-1)!.event, 'run.completed');
    assert.deepEqual(events.map((e) => e.id), events.map((_, i) => i + 1));
    const reply = events.filter((e) => e.event === 'reply.delta').map((e) => e.data.text).join('');
    const run = (await f.call('GET', `/v1/runs/${events[0]!.data.run_id}`)).body;
    assert.equal(reply, run.reply.content);
    assert.match(reply, /Settings/);
  });
});
