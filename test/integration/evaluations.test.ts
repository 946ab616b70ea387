import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EvaluationRepo } from '../../src/evaluations/evaluation.repo';
import { HELP_CENTER, seedAgent, type AgentFixture } from '../support/agents';
import { signInToConsole } from '../support/console';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { lookupOrderTool, useToolServer } from '../support/tool-server';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const tools = useToolServer();

const agentTools = () => [
  lookupOrderTool(tools),
  {
    name: 'cancel_subscription',
    description: 'Cancel the customer subscription plan',
    parameters: { type: 'object', properties: { plan: { type: 'string', enum: ['basic', 'premium'] } }, required: ['plan'] },
    endpoint: `${tools.url}/cancel`,
  },
];

/** The help center, plus a returns passage long enough (and UCS-2, for its emoji) to take several SMS segments. */
const RECORDS = [
  ...HELP_CENTER,
  {
    title: 'Returns',
    content: 'Returns are accepted within 30 days of delivery 📦 when the item is unused and in its original packaging. Print the prepaid label from your account, drop the parcel at any post office, and the refund follows within 14 days.',
    url: 'https://help.example.com/returns',
  },
];

async function seed(extra: Record<string, unknown> = {}) {
  return seedAgent(ctx.stack, { tools: agentTools(), guardrails: { requires_approval: ['cancel_subscription'] }, ...extra }, RECORDS);
}

async function addCase(f: AgentFixture, body: Record<string, unknown>) {
  const res = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}

async function evaluate(f: AgentFixture, body: Record<string, unknown> = {}) {
  const started = await f.call('POST', '/v1/evaluations', { agent_id: f.agentId, ...body });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  assert.equal(started.body.status, 'running');
  return pollUntil('the evaluation to complete', async () => {
    const res = await f.call('GET', `/v1/evaluations/${started.body.id}`);
    return res.body.status === 'completed' && res.body;
  }, { timeoutMs: 60_000 });
}

const resultOf = (evaluation: any, name: string) => evaluation.cases.find((c: any) => c.name === name);

/** The agent's hidden draft snapshots (negative versions), newest first. */
async function draftSnapshots(agentId: string): Promise<number[]> {
  const rows = await ctx.stack.database.db.selectFrom('agent_versions').select('version').where('agent_id', '=', agentId).where('version', '<', 0).orderBy('version', 'asc').execute();
  return rows.map((r) => r.version);
}

describe('evaluations', () => {
  it('passes every expectation kind that holds, in hidden test conversations, without calling the tools', async () => {
    const f = await seed();
    const before = tools.requests.length;
    await addCase(f, { name: 'shipping', turns: [{ customer: 'How long does standard shipping take?', expect: { reply: { cites: { title: 'shipping' }, contains_one_of: ['3 to 5 business days', 'next day'] }, no_tool: true } }] });
    await addCase(f, { name: 'shipping by sms', channel: 'sms', turns: [{ customer: 'How long does standard shipping take?', expect: { reply: { cites: { url: 'help.example.com/shipping' }, max_sms_segments: 4 } } }] });
    await addCase(f, { name: 'parrot', turns: [{ customer: 'Can I bring my parrot to the annual shareholder meeting in Lisbon?', expect: { handoff: { reasons: ['no_supporting_source', 'low_confidence'] } } }] });
    await addCase(f, {
      name: 'order status',
      turns: [{ customer: 'Where is my order 12345?', expect: { tool_called: { tool: 'lookup_order', arguments: { order_id: '12345' } }, reply: { contains_one_of: ['shipped'] } } }],
      tool_results: [{ tool: 'lookup_order', arguments: { order_id: '12345' }, result: { order_id: '12345', status: 'shipped' } }],
    });
    await addCase(f, {
      name: 'cancel needs approval',
      turns: [{ customer: 'Please cancel my premium subscription plan', approve: true, expect: { requires_action: { tool: 'cancel_subscription', type: 'approval', arguments: { plan: 'premium' } }, tool_called: { tool: 'cancel_subscription' } } }],
      tool_results: [{ tool: 'cancel_subscription', result: { cancelled: true } }],
    });
    await addCase(f, { name: 'card', turns: [{ customer: 'My card 4242 4242 4242 4242 was charged twice, what is your refund policy?', expect: { redacted: ['4242 4242 4242 4242', '4242424242424242'] } }] });

    const evaluation = await evaluate(f);
    for (const c of evaluation.cases) assert.deepEqual(c.failures, [], c.name);
    assert.equal(evaluation.passed, true, JSON.stringify(evaluation.cases, null, 1));
    assert.equal(evaluation.case_count, 6);
    assert.equal(evaluation.passed_count, 6);
    assert.equal(evaluation.version, 'draft');
    assert.equal(evaluation.agent_version, null, 'an evaluation of the draft says draft, not the number of its hidden snapshot');
    for (const c of evaluation.cases) {
      assert.ok(c.run_ids.length === 1 && c.run_ids[0].startsWith('run_'), c.name);
      assert.ok(c.latency_ms >= 0);
    }
    assert.ok(resultOf(evaluation, 'shipping').confidence > 0);
    assert.equal(tools.requests.length, before, 'no tool endpoint was called');

    // Hidden: no API list shows the test conversations; their runs are marked as evaluation traffic.
    const listed = await f.call('GET', `/v1/conversations?agent_id=${f.agentId}`);
    assert.deepEqual(listed.body.data, []);
    const run = await f.call('GET', `/v1/runs/${resultOf(evaluation, 'shipping').run_ids[0]}`);
    assert.equal(run.body.metadata.evaluation_id, evaluation.id);
    assert.ok(run.body.agent_version < 0, 'the run records the hidden draft snapshot it used');
    const sms = await f.call('GET', `/v1/runs/${resultOf(evaluation, 'shipping by sms').run_ids[0]}`);
    assert.equal(sms.body.channel, 'sms');
    const sent = await f.call('GET', '/v1/messages');
    assert.deepEqual(sent.body.data, [], 'no SMS was sent');

    const events = await f.call('GET', '/v1/events?type=evaluation.completed');
    assert.equal(events.body.data.length, 1);
    assert.equal(events.body.data[0].data.id, evaluation.id);
    assert.equal(events.body.data[0].data.passed, true);
  });

  it('fails each expectation kind that does not hold, saying which and why', async () => {
    const f = await seed();
    await addCase(f, { name: 'wrong source', turns: [{ customer: 'How long does standard shipping take?', expect: { reply: { cites: { title: 'Refund policy' } } } }] });
    await addCase(f, { name: 'wrong fact', turns: [{ customer: 'How long does standard shipping take?', expect: { reply: { contains_one_of: ['two weeks'] } } }] });
    await addCase(f, { name: 'too long for sms', channel: 'sms', turns: [{ customer: 'How do I return an item?', expect: { reply: { max_sms_segments: 1 } } }] });
    await addCase(f, { name: 'no handoff', turns: [{ customer: 'How do I reset my password?', expect: { handoff: {} } }] });
    await addCase(f, { name: 'no reply', turns: [{ customer: 'Can I bring my parrot to the annual shareholder meeting in Lisbon?', expect: { reply: {} } }] });
    await addCase(f, { name: 'wrong handoff reason', turns: [{ customer: 'Can I bring my parrot to the annual shareholder meeting in Lisbon?', expect: { handoff: { reasons: ['restricted_topic'] } } }] });
    await addCase(f, { name: 'no action', turns: [{ customer: 'How do I reset my password?', expect: { requires_action: { tool: 'cancel_subscription' } } }] });
    await addCase(f, { name: 'no call', turns: [{ customer: 'How do I reset my password?', expect: { tool_called: { tool: 'lookup_order' } } }] });
    await addCase(f, {
      name: 'a call',
      turns: [{ customer: 'Where is my order 12345?', expect: { no_tool: true } }],
      tool_results: [{ tool: 'lookup_order', result: { status: 'shipped' } }],
    });
    await addCase(f, { name: 'stored', turns: [{ customer: 'My order reference is ZEBRA-991, how long does shipping take?', expect: { redacted: ['ZEBRA-991'] } }] });

    const evaluation = await evaluate(f);
    assert.equal(evaluation.passed, false);
    assert.deepEqual(evaluation.cases.filter((c: any) => c.passed).map((c: any) => c.name), []);
    assert.equal(evaluation.failed_count, 10);
    const failed = (name: string) => resultOf(evaluation, name).failures.map((x: any) => x.expectation);
    assert.deepEqual(failed('wrong source'), ['reply.cites']);
    assert.match(resultOf(evaluation, 'wrong source').failures[0].reason, /Shipping times/);
    assert.deepEqual(failed('wrong fact'), ['reply.contains_one_of']);
    assert.deepEqual(failed('too long for sms'), ['reply.max_sms_segments']);
    assert.deepEqual(failed('no handoff'), ['handoff']);
    assert.deepEqual(failed('no reply'), ['reply']);
    assert.match(resultOf(evaluation, 'no reply').failures[0].reason, /handed off/);
    assert.deepEqual(failed('wrong handoff reason'), ['handoff.reasons']);
    assert.deepEqual(failed('no action'), ['requires_action']);
    assert.deepEqual(failed('no call'), ['tool_called']);
    assert.deepEqual(failed('a call'), ['no_tool']);
    assert.deepEqual(failed('stored'), ['redacted']);
    // Turns count from 1 in the API, as the console and the CLI print them ("turn 1").
    for (const c of evaluation.cases) assert.equal(c.failures[0].turn, 1);
    const s = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const tab = await s.get(`/console/agents/${f.agentId}/tests`);
    assert.equal(tab.status, 200);
    assert.match(tab.text, new RegExp(`${evaluation.id}</a></td><td>draft</td>`), 'the evaluations list says draft');
    assert.doesNotMatch(tab.text, /draft \(-\d+\)/);
    const page = await s.get(`/console/agents/${f.agentId}/evaluations/${evaluation.id}`);
    assert.match(page.text, /<b>turn 1 reply\.cites<\/b>/);
    assert.doesNotMatch(page.text, /turn [02] /);
  });

  it('answers tool calls from the case: a 200 body, an error, a 202 then the result; the real tool only when asked', async (t) => {
    // Once the runner has answered what a run asks, it waits for the run to move on instead of re-reading
    // it while its workflow has not read the answers yet (a read that answers within the wait counts).
    const runs = ctx.stack.services.runs;
    const [wait, decide, submit] = [runs.waitForRun.bind(runs), runs.decideApproval.bind(runs), runs.submitToolResult.bind(runs)];
    const answered = new Set<string>();
    let rereadsOfAnswered = 0;
    t.mock.method(runs, 'decideApproval', (input: Parameters<typeof decide>[0]) => (answered.add(input.toolCallId), decide(input)));
    t.mock.method(runs, 'submitToolResult', (input: Parameters<typeof submit>[0]) => (answered.add(input.toolCallId), submit(input)));
    t.mock.method(runs, 'waitForRun', async (input: Parameters<typeof wait>[0]) => {
      const answeredBefore = new Set(answered);
      const started = Date.now();
      const run = await wait(input);
      const stillAnswered = run.status === 'requires_action' && run.required_action?.tool_calls.every((c) => answeredBefore.has(c.id));
      if (stillAnswered && Date.now() - started < input.waitMs) rereadsOfAnswered++;
      return run;
    });
    const f = await seed();
    await addCase(f, {
      name: 'tool error',
      turns: [{ customer: 'Where is my order 12345?', expect: { tool_called: { tool: 'lookup_order' } } }],
      tool_results: [{ tool: 'lookup_order', error: { code: 'order_system_down', message: 'The order system is down' } }],
    });
    await addCase(f, {
      name: 'pending then result',
      turns: [{ customer: 'Where is my order 12345?', expect: { requires_action: { tool: 'lookup_order', type: 'async_result' }, reply: { contains_one_of: ['delivered'] } } }],
      tool_results: [{ tool: 'lookup_order', pending: true, result: { order_id: '12345', status: 'delivered' } }],
    });
    await addCase(f, {
      name: 'real tool',
      turns: [{ customer: 'Where is my order 54321?', expect: { tool_called: { tool: 'lookup_order', arguments: { order_id: '54321' } } } }],
      tool_results: [{ tool: 'lookup_order', call_endpoint: true }],
    });
    await addCase(f, { name: 'undeclared', turns: [{ customer: 'Where is my order 12345?', expect: { tool_called: { tool: 'lookup_order' } } }] });
    await addCase(f, {
      name: 'approval rejected',
      turns: [{ customer: 'Please cancel my premium subscription plan', approve: false, expect: { requires_action: { tool: 'cancel_subscription', type: 'approval' }, handoff: { reasons: ['approval_rejected'] } } }],
      tool_results: [{ tool: 'cancel_subscription', result: { cancelled: true } }],
    });
    const before = tools.requests.length;
    const evaluation = await evaluate(f);
    for (const c of evaluation.cases) assert.deepEqual(c.failures, [], c.name);

    const callOf = async (name: string) => (await f.call('GET', `/v1/runs/${resultOf(evaluation, name).run_ids[0]}`)).body.tool_calls[0];
    const errored = await callOf('tool error');
    assert.equal(errored.result_status, 'error');
    assert.equal(errored.error.code, 'order_system_down');
    assert.equal((await callOf('pending then result')).result_status, 'ok');
    assert.equal((await callOf('undeclared')).error.code, 'tool_result_not_declared');
    assert.equal((await callOf('approval rejected')).result_status, 'rejected');
    assert.equal(tools.requests.length, before + 1, 'only the case that asked called the endpoint');
    assert.equal(tools.requests.at(-1)!.body.arguments.order_id, '54321');
    assert.ok(answered.size >= 2, 'the runner answered the 202 and the approval');
    assert.equal(rereadsOfAnswered, 0);
  });

  it('compares a draft with the live version and, with require_passing_evaluation, refuses to publish a regression or an unevaluated draft', async () => {
    const f = await seed();
    const scope = { accountId: f.accountId, livemode: false };
    const { agents } = ctx.stack.services;
    await addCase(f, { name: 'shipping', turns: [{ customer: 'How long does standard shipping take?', expect: { reply: { cites: { title: 'Shipping times' } } } }] });
    await addCase(f, { name: 'password', turns: [{ customer: 'How do I reset my password?', expect: { reply: {} } }] });

    const live = await evaluate(f, { version: 1 });
    assert.equal(live.passed, true, JSON.stringify(live.cases));
    assert.equal(live.version, 1);

    // A draft that turns shipping into a restricted topic: the shipping case regresses.
    const { draft } = await agents.getDraft({ ...scope, agentId: f.agentId });
    const worse = { ...draft, require_passing_evaluation: true, guardrails: { ...draft.guardrails, restricted_topics: ['shipping'] } };
    await agents.updateDraft({ ...scope, agentId: f.agentId, config: worse });
    await assert.rejects(agents.publishAgent({ ...scope, agentId: f.agentId }), (err: any) => err.code === 'evaluation_required' && /never evaluated/.test(err.message));
    assert.deepEqual(await draftSnapshots(f.agentId), [], 'a refused publish stores no snapshot of the draft');

    const regressed = await evaluate(f);
    assert.equal(regressed.comparison.baseline_evaluation_id, live.id);
    assert.equal(regressed.comparison.baseline_version, 1);
    assert.deepEqual(regressed.comparison.regressions, [resultOf(regressed, 'shipping').case_id]);
    assert.deepEqual(regressed.comparison.fixes, []);
    assert.equal(resultOf(regressed, 'shipping').comparison, 'regression');
    assert.equal(resultOf(regressed, 'password').comparison, 'unchanged');
    await assert.rejects(agents.publishAgent({ ...scope, agentId: f.agentId }), (err: any) => err.code === 'evaluation_regression' && /'shipping'/.test(err.message));

    // Fixed, but not evaluated since: still refused; evaluated: published.
    await agents.updateDraft({ ...scope, agentId: f.agentId, config: { ...worse, guardrails: { ...worse.guardrails, restricted_topics: ['legal advice'] } } });
    const snapshotsBefore = await draftSnapshots(f.agentId);
    await assert.rejects(agents.publishAgent({ ...scope, agentId: f.agentId }), (err: any) => err.code === 'evaluation_required' && /changed since/.test(err.message));
    assert.deepEqual(await draftSnapshots(f.agentId), snapshotsBefore, 'a refused publish stores no snapshot of the changed draft');
    const fixed = await evaluate(f);
    assert.equal(fixed.passed, true);
    assert.deepEqual(fixed.comparison.regressions, []);
    const published = await agents.publishAgent({ ...scope, agentId: f.agentId });
    assert.equal(published.version, 2);
  });

  it('publishes the draft it checked: a draft edited while the publish is being checked is refused 409, and nothing goes live', async (t) => {
    const f = await seed();
    const scope = { accountId: f.accountId, livemode: false };
    const { agents } = ctx.stack.services;
    const { db } = ctx.stack.database;
    const liveBefore = await db.selectFrom('agents').select('live_version').where('id', '=', f.agentId).executeTakeFirstOrThrow();
    // A draft that differs from the live version (an unchanged draft publishes nothing).
    const { draft: live } = await agents.getDraft({ ...scope, agentId: f.agentId });
    const { draft } = (await agents.getDraft({ ...scope, agentId: (await agents.updateDraft({ ...scope, agentId: f.agentId, config: { ...live, instructions: 'A new draft.' } })).id }));
    const edited = { ...draft, guardrails: { ...draft.guardrails, restricted_topics: ['legal advice'] } };
    // Another request edits the draft between the publish's checks and its write.
    const validate = agents.validateConfig.bind(agents);
    t.mock.method(agents, 'validateConfig', async (input: Parameters<typeof validate>[0]) => {
      const checked = await validate(input);
      await db.updateTable('agents').set({ draft: JSON.stringify(edited) }).where('id', '=', f.agentId).execute();
      return checked;
    });
    await assert.rejects(agents.publishAgent({ ...scope, agentId: f.agentId }), (err: any) => err.code === 'resource_conflict' && /changed while it was being published/.test(err.message));
    const liveAfter = await db.selectFrom('agents').select('live_version').where('id', '=', f.agentId).executeTakeFirstOrThrow();
    assert.equal(liveAfter.live_version, liveBefore.live_version, 'nothing went live');
    t.mock.restoreAll();
    const published = await agents.publishAgent({ ...scope, agentId: f.agentId });
    assert.deepEqual(published.guardrails.restricted_topics, ['legal advice'], 'published again: the edited draft, checked this time');
  });

  it('imports cases in the console by name past the first 100, keeping the cases the YAML does not list', async () => {
    const f = await seed();
    const scope = { accountId: f.accountId, livemode: false };
    const names = Array.from({ length: 105 }, (_, i) => `case ${String(i).padStart(3, '0')}`);
    await ctx.stack.services.testCases.replaceAgentTests({ ...scope, agentId: f.agentId, tests: names.map((name) => ({ name, turns: [{ customer: 'hi' }] })) });
    const casesOf = () => new EvaluationRepo().listTestCases(ctx.stack.database.db, f.agentId);
    const before = await casesOf();
    assert.equal(before.length, 105);

    // 'case 000' is the oldest: not among the 100 newest the Tests tab lists.
    const s = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const yaml = 'tests:\n  - name: case 000\n    turns:\n      - customer: How do I reset my password?\n  - name: brand new\n    turns:\n      - customer: hello\n';
    const imported = await s.post(`/console/agents/${f.agentId}/tests/import`, { yaml });
    assert.equal(imported.status, 303, imported.text);

    const after = await casesOf();
    assert.equal(after.length, 106, 'one case added, none deleted');
    const oldest = after.find((c) => c.name === 'case 000')!;
    assert.equal(oldest.id, before[0]!.id, 'replaced by name, not added again');
    assert.deepEqual((oldest.definition as any).turns.map((t: any) => t.customer), ['How do I reset my password?']);
    assert.deepEqual(after.filter((c) => !names.includes(c.name)).map((c) => c.name), ['brand new']);

    // An import with a bad entry changes nothing, and shows the Tests tab again with the message.
    const bad = await s.post(`/console/agents/${f.agentId}/tests/import`, { yaml: 'tests:\n  - name: case 001\n    turns:\n      - customer: changed\n  - name: broken\n' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /tests\.1\.turns/);
    assert.deepEqual((await casesOf()).map((c) => [c.id, c.updated_at.getTime()]), after.map((c) => [c.id, c.updated_at.getTime()]));
  });

  it('records a case deleted after its evaluation started as failed, so the evaluation still completes', async () => {
    const f = await seed();
    const kept = await addCase(f, { name: 'kept', turns: [{ customer: 'How do I reset my password?', expect: { reply: {} } }] });
    const gone = await addCase(f, { name: 'gone', turns: [{ customer: 'How do I reset my password?' }] });
    const evaluation = await ctx.stack.services.evaluations.createEvaluation({ accountId: f.accountId, livemode: false, agentId: f.agentId, version: 'draft', caseIds: [kept] });
    await f.call('DELETE', `/v1/agents/${f.agentId}/test_cases/${gone}`);
    const outcome = await ctx.stack.services.evaluationCases.runEvaluationCase({ evaluationId: evaluation.id, caseId: gone, position: 1 });
    assert.deepEqual(outcome, { passed: false });
    const done = await pollUntil('the evaluation to complete', async () => {
      const res = await f.call('GET', `/v1/evaluations/${evaluation.id}`);
      return res.body.status === 'completed' && res.body;
    });
    const deleted = done.cases.find((c: any) => c.case_id === gone);
    assert.equal(deleted.passed, false);
    assert.match(deleted.failures[0].reason, /deleted/);
    assert.equal(resultOf(done, 'kept').passed, true);
  });

  it('refuses messages posted to an evaluation\'s test conversation, and sends nothing from it (issue 28 #9)', async () => {
    const f = await seed({ channels: ['chat', 'sms'] });
    await addCase(f, { name: 'sms case', channel: 'sms', customer: { phone: '+14155550199' }, turns: [{ customer: 'How long does standard shipping take?' }] });
    const done = await evaluate(f);
    const conversationId = resultOf(done, 'sms case').conversation_id;
    const transcript = async () => (await f.call('GET', `/v1/conversations/${conversationId}/messages`)).body.data.map((m: any) => m.id);
    const before = await transcript();
    assert.equal((await f.call('GET', `/v1/conversations/${conversationId}`)).status, 200, 'readable, as the evaluation result links it');
    for (const role of ['human', 'customer']) {
      const res = await f.call('POST', `/v1/conversations/${conversationId}/messages`, { role, content: 'Click https://phish.example/login now' });
      assert.equal(res.status, 409, `${role}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'resource_conflict');
      assert.match(res.body.error.message, /evaluation's test conversation/);
    }
    assert.deepEqual(await transcript(), before, 'nothing stored');
    const sms = await ctx.stack.database.db.selectFrom('messages').select('id').where('account_id', '=', f.accountId).execute();
    assert.deepEqual(sms, [], 'no SMS was queued from the evaluation\'s conversation');
  });

  it('refuses bad test cases and evaluations with the API error format, changing nothing', async () => {
    const f = await seed();
    const bad = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name: 'x', turns: [{ customer: 'hi', expect: { reply: { max_sms_segments: 0 } } }] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'turns.0.expect.reply.max_sms_segments');
    const unknown = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name: 'x', turns: [{ customer: 'hi', expect: { replies: {} } }] });
    assert.equal(unknown.status, 400);
    const both = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name: 'x', turns: [{ customer: 'hi' }], tool_results: [{ tool: 'lookup_order', result: {}, error: { code: 'x' } }] });
    assert.equal(both.status, 422);
    assert.equal(both.body.error.param, 'tool_results.0');
    const pendingAlone = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name: 'x', turns: [{ customer: 'hi' }], tool_results: [{ tool: 'lookup_order', pending: true }] });
    assert.equal(pendingAlone.status, 422);
    assert.match(pendingAlone.body.error.message, /pending: true needs the result/);
    const none = await f.call('POST', '/v1/evaluations', { agent_id: f.agentId });
    assert.equal(none.status, 422);
    const id = await addCase(f, { name: 'ok', turns: [{ customer: 'hi' }] });
    // A schema-valid case whose name the agent already has: a conflict (409), not a bad request (issue 28 #16, ST202).
    const dup = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name: 'ok', turns: [{ customer: 'hi' }] });
    assert.equal(dup.status, 409, JSON.stringify(dup.body));
    assert.equal(dup.body.error.code, 'resource_conflict');
    assert.equal(dup.body.error.param, 'name');
    const raced = await Promise.all([1, 2].map(() => f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name: 'raced', turns: [{ customer: 'hi' }] })));
    assert.deepEqual(raced.map((r) => r.status).sort(), [201, 409], 'two at once: one created, one conflict (never 500)');
    const renamedOnto = await f.call('POST', `/v1/agents/${f.agentId}/test_cases/${raced.find((r) => r.status === 201)!.body.id}`, { name: 'ok', turns: [{ customer: 'hi' }] });
    assert.equal(renamedOnto.status, 409);
    await f.call('DELETE', `/v1/agents/${f.agentId}/test_cases/${raced.find((r) => r.status === 201)!.body.id}`);
    const missingCase = await f.call('POST', '/v1/evaluations', { agent_id: f.agentId, case_ids: ['tcase_nope'] });
    assert.equal(missingCase.status, 404);
    assert.equal(missingCase.body.error.param, 'case_ids');
    const missingVersion = await f.call('POST', '/v1/evaluations', { agent_id: f.agentId, version: 9 });
    assert.equal(missingVersion.status, 404);
    const listed = await f.call('GET', `/v1/agents/${f.agentId}/test_cases`);
    assert.deepEqual(listed.body.data.map((c: any) => c.id), [id]);
    const evaluations = await f.call('GET', `/v1/evaluations?agent_id=${f.agentId}`);
    assert.deepEqual(evaluations.body.data, []);
    const updated = await f.call('POST', `/v1/agents/${f.agentId}/test_cases/${id}`, { name: 'renamed', turns: [{ customer: 'hello' }] });
    assert.equal(updated.body.name, 'renamed');
    const deleted = await f.call('DELETE', `/v1/agents/${f.agentId}/test_cases/${id}`);
    assert.equal(deleted.body.deleted, true);
    const other = await seedAgent(ctx.stack);
    const foreign = await other.call('GET', `/v1/agents/${f.agentId}/test_cases`);
    assert.equal(foreign.status, 404);
    const snapshots = await draftSnapshots(f.agentId);
    for (const version of ['draft', 1]) {
      const foreignEvaluation = await other.call('POST', '/v1/evaluations', { agent_id: f.agentId, version });
      assert.equal(foreignEvaluation.status, 404, `version ${version}`);
      assert.equal(foreignEvaluation.body.error.param, 'agent_id');
    }
    assert.deepEqual(await draftSnapshots(f.agentId), snapshots, 'no snapshot of another account\'s draft');
  });
});
