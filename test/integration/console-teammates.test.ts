import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCliCommand } from '../../src/cli/cli-commands';
import type { Role } from '../../src/domain/roles';
import { ask, openConversation, refundTool, seedAgent } from '../support/agents';
import { consoleRequest, consoleSession } from '../support/console';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { json, useToolServer } from '../support/tool-server';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const tools = useToolServer();
const PASSWORD = 'correct horse battery';

async function signIn(email: string, password = PASSWORD) {
  const base = ctx.stack.baseUrl;
  const res = await consoleRequest(base, '/console/sign-in', { form: { email, password }, headers: { origin: base } });
  return res.status === 303 ? consoleSession(base, res.cookie!) : undefined;
}

async function teammate(accountId: string, role: Role, name = `The ${role}`) {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  const user = await ctx.stack.services.consoleSessions.createUser({ accountId, email, password: PASSWORD, role, displayName: name });
  return { ...user, session: (await signIn(email))! };
}

/** Accepts an invite link through its page, as its person would; answers the signed-in session's cookie. */
async function accept(url: string, displayName: string, password = PASSWORD) {
  const base = ctx.stack.baseUrl;
  const path = new URL(url).pathname;
  const page = await consoleRequest(base, path);
  const res = await consoleRequest(base, path, { form: { display_name: displayName, password }, headers: { origin: base } });
  return { page, res };
}

describe('teammates: invites, roles, disable and remove', () => {
  it('the CLI makes the first owner\'s link; the owner invites an agent in the console; each link works once', async () => {
    const { accountId } = await ctx.stack.newAccount('Team shop');
    const cli = await runCliCommand(['teammates', 'create-owner', '--account', accountId, '--email', 'olga@example.com'], ctx.stack.services);
    assert.equal(cli.exitCode, 0, cli.stderr);
    const printed = JSON.parse(cli.stdout);
    assert.equal(printed.role, 'owner');
    assert.match(printed.url, /\/console\/invites\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

    const first = await accept(printed.url, 'Olga');
    assert.equal(first.page.status, 200);
    assert.match(first.page.text, /invited as <span class="tag">owner<\/span> with <b>olga@example.com<\/b>/);
    assert.equal(first.res.status, 303, first.res.text);
    assert.ok(first.res.cookie, 'signed in');
    const again = await accept(printed.url, 'Mallory');
    assert.equal(again.page.status, 410, 'a used link is gone');
    assert.equal(again.res.status, 410);
    const forged = await consoleRequest(ctx.stack.baseUrl, `/console/invites/${printed.url.split('/').pop().replace(/.$/, 'A')}`);
    assert.equal(forged.status, 410, 'a link whose signature is wrong opens nothing');

    const olga = await consoleSession(ctx.stack.baseUrl, first.res.cookie!);
    const invited = await olga.post('/console/team/invites', { email: 'sam@example.com', role: 'agent' });
    assert.equal(invited.status, 200, invited.text.slice(0, 300));
    const link = /data-secret>(http[^<]+)</.exec(invited.text)?.[1];
    assert.ok(link, 'the link is shown to copy');
    assert.match(invited.text, /Email is not configured: send them this link yourself/);
    const sam = await accept(link, 'Sam Lee');
    assert.equal(sam.res.status, 303, sam.res.text);
    const samSession = await consoleSession(ctx.stack.baseUrl, sam.res.cookie!);
    const team = await samSession.get('/console/team');
    assert.match(team.text, /Sam Lee/);
    assert.match(team.text, /data-my-role>agent</);
    assert.equal((await samSession.post('/console/team/invites', { email: 'x@example.com', role: 'viewer' })).status, 403, 'an agent invites nobody');

  });

  it('nobody grants above their own role; an admin never changes an owner; the last owner cannot be demoted, disabled or removed', async () => {
    const { accountId } = await ctx.stack.newAccount('Guarded');
    const owner = await teammate(accountId, 'owner');
    const admin = await teammate(accountId, 'admin');
    const agent = await teammate(accountId, 'agent');

    assert.equal((await admin.session.post('/console/team/invites', { email: 'boss@example.com', role: 'owner' })).status, 403);
    assert.equal((await admin.session.post(`/console/team/${agent.id}/role`, { role: 'owner' })).status, 403);
    assert.equal((await admin.session.post(`/console/team/${owner.id}/disable`)).status, 403, 'an admin cannot disable an owner');
    assert.equal((await admin.session.post(`/console/team/${agent.id}/role`, { role: 'viewer' })).status, 303);

    for (const [action, form] of [['role', { role: 'admin' }], ['disable', {}], ['remove', {}]] as const) {
      const res = await owner.session.post(`/console/team/${owner.id}/${action}`, form);
      assert.equal(res.status, 409, `${action}: ${res.text.slice(0, 200)}`);
      assert.match(res.text, /last owner cannot be/);
    }
    const team = await ctx.stack.services.teammates.listTeam({ accountId });
    assert.deepEqual(team.teammates.map((t) => [t.id, t.role, t.disabled]), [[owner.id, 'owner', false], [admin.id, 'admin', false], [agent.id, 'viewer', false]]);

    // With a second owner, the first may step down.
    assert.equal((await owner.session.post(`/console/team/${admin.id}/role`, { role: 'owner' })).status, 303);
    assert.equal((await owner.session.post(`/console/team/${owner.id}/role`, { role: 'admin' })).status, 303);
  });

  it('a disabled or removed teammate\'s sessions end at once; a disabled one cannot sign in', async () => {
    const { accountId } = await ctx.stack.newAccount('Leavers');
    const owner = await teammate(accountId, 'owner');
    const leaver = await teammate(accountId, 'agent');
    assert.equal((await leaver.session.get('/console/inbox')).status, 200);
    assert.equal((await owner.session.post(`/console/team/${leaver.id}/disable`)).status, 303);
    assert.equal((await leaver.session.get('/console/inbox')).status, 303, 'sent to sign in');
    assert.equal(await signIn(leaver.email), undefined, 'cannot sign in while disabled');
    assert.equal((await owner.session.post(`/console/team/${leaver.id}/enable`)).status, 303);
    const back = (await signIn(leaver.email))!;
    assert.equal((await back.get('/console/inbox')).status, 200);
    assert.equal((await owner.session.post(`/console/team/${leaver.id}/remove`)).status, 303);
    assert.equal((await back.get('/console/inbox')).status, 303);
    assert.equal(await signIn(leaver.email), undefined);
    // Another account's teammate is not found from here.
    const other = await ctx.stack.newAccount('Other');
    const stranger = await teammate(other.accountId, 'agent');
    assert.equal((await owner.session.post(`/console/team/${stranger.id}/disable`)).status, 404);
    assert.equal((await stranger.session.get('/console/inbox')).status, 200);
  });
});

describe('approvals: who approved is recorded', () => {
  it('a teammate approves in the console: the tool call, the run, its stream and the run.approval event name them; approver_roles narrows who may', async () => {
    tools.handle((req, res) => json(res, 200, { refunded: true, order_id: req.body.arguments.order_id }));
    const f = await seedAgent(ctx.stack, { tools: [{ ...refundTool(tools.url), approver_roles: ['admin', 'owner'] }], guardrails: { requires_approval: ['refund_order'] } });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 12345');
    assert.equal(run.status, 'requires_action', JSON.stringify(run));
    const callId = run.required_action.tool_calls[0].id;

    // The handoff queue lists it with its badge.
    const agent = await teammate(f.accountId, 'agent', 'Ada Agent');
    const queue = await agent.session.get('/console/inbox?status=handed_off');
    assert.match(queue.text, new RegExp(`data-conversation="${cnv}"[\\s\\S]*?data-approval-badge`));
    const page = await agent.session.get(`/console/inbox/${cnv}`);
    assert.match(page.text, /data-approval-panel/);
    assert.match(page.text, /Approved by: admin, owner/);

    const refused = await agent.session.post(`/console/runs/${run.id}/approvals`, { tool_call_id: callId, decision: 'approve' });
    assert.equal(refused.status, 403, 'the tool names admin and owner only');
    const viewer = await teammate(f.accountId, 'viewer');
    assert.equal((await viewer.session.post(`/console/runs/${run.id}/approvals`, { tool_call_id: callId, decision: 'approve' })).status, 403);

    const admin = await teammate(f.accountId, 'admin', 'Ann Admin');
    const approved = await admin.session.post(`/console/runs/${run.id}/approvals`, { tool_call_id: callId, decision: 'approve', note: 'Within the window' });
    assert.equal(approved.status, 303, approved.text.slice(0, 300));
    const done = await pollUntil('the run to complete', async () => {
      const r = await f.call('GET', `/v1/runs/${run.id}`);
      return r.body.status === 'completed' ? r.body : undefined;
    }, { timeoutMs: 30_000 });
    assert.equal(done.tool_calls[0].result_status, 'ok');
    assert.deepEqual(done.tool_calls[0].approval.approver, { type: 'teammate', id: admin.id, name: 'Ann Admin' });
    assert.equal(done.tool_calls[0].approval.decision, 'approve');
    assert.equal(done.tool_calls[0].approval.note, 'Within the window');
    const events = (await f.call('GET', '/v1/events?limit=100')).body.data as Array<{ type: string; data: any }>;
    const event = events.find((e) => e.type === 'run.approval');
    assert.ok(event, 'a run.approval event');
    assert.deepEqual(event.data.approval.approver, { type: 'teammate', id: admin.id, name: 'Ann Admin' });

    // Ada replies: the transcript, the API's message and its author name her; an API reply names its key.
    const reply = await agent.session.post(`/console/inbox/${cnv}/reply`, { content: 'Your refund is on its way.' });
    assert.equal(reply.status, 303, reply.text.slice(0, 300));
    const apiReply = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Anything else?' });
    assert.equal(apiReply.status, 201, JSON.stringify(apiReply.body));
    const transcript = (await f.call('GET', `/v1/conversations/${cnv}/messages`)).body.data as Array<{ role: string; content: string; author: unknown }>;
    const human = transcript.filter((m) => m.role === 'human');
    assert.deepEqual(human.map((m) => m.author), [{ type: 'teammate', id: agent.id, name: 'Ada Agent' }, { type: 'api_key', id: apiReply.body.author.id, name: null }]);
    assert.match(apiReply.body.author.id, /^key_/);
    assert.ok(transcript.filter((m) => m.role !== 'human').every((m) => m.author === null));
    const shown = (await agent.session.get(`/console/inbox/${cnv}`)).text;
    assert.match(shown, /<b>Ada Agent<\/b>/);
    assert.match(shown, /<b>Support team<\/b>/, 'the API key\'s reply keeps the team\'s name');

    const stream = await ctx.stack.services.runs.streamEvents({ accountId: f.accountId, livemode: false, runId: run.id, afterSeq: 0 });
    const types: string[] = [];
    for await (const e of stream) types.push(e.event);
    assert.ok(types.includes('run.approval'), types.join(', '));
  });

  it('through the API the key is the approver; a viewer key is refused', async () => {
    tools.handle((req, res) => json(res, 200, { refunded: true, order_id: req.body.arguments.order_id }));
    const f = await seedAgent(ctx.stack, { tools: [refundTool(tools.url)], guardrails: { requires_approval: ['refund_order'] } });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 54321');
    const callId = run.required_action.tool_calls[0].id;
    const viewerKey = (await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'test', role: 'viewer' })).secret;
    const asViewer = await fetch(`${ctx.stack.baseUrl}/v1/runs/${run.id}/approvals`, { method: 'POST', headers: { authorization: `Bearer ${viewerKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ tool_call_id: callId, decision: 'approve' }) });
    assert.equal(asViewer.status, 403);
    const decided = await f.call('POST', `/v1/runs/${run.id}/approvals`, { tool_call_id: callId, decision: 'reject', note: 'No' });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const keyId = (await ctx.stack.services.accounts.listApiKeys({ accountId: f.accountId, mode: 'test' })).find((k) => k.role === 'owner')!.id;
    assert.deepEqual(decided.body.tool_calls[0].approval.approver, { type: 'api_key', id: keyId, name: null });
    assert.equal(decided.body.tool_calls[0].approval.decision, 'reject');
  });
});
