import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ask, openConversation, refundTool, seedAgent } from '../support/agents';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { json, useToolServer } from '../support/tool-server';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const tools = useToolServer();
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console');
mkdirSync(ARTIFACTS, { recursive: true });
const PASSWORD = 'correct horse battery';

let browser: Browser | undefined;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
});

/** A fresh browser (its own cookies) on the console. */
async function freshPage(): Promise<Page> {
  const page = await (await browser!.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on('dialog', (d) => void d.accept());
  return page;
}

/** An agent whose refund tool (answered by the tool server) needs a person's approval. */
async function seedRefundAgent() {
  tools.handle((req, res) => json(res, 200, { refunded: true, amount: '42.00', order_id: req.body.arguments.order_id }));
  return seedAgent(ctx.stack, {
    tools: [refundTool(tools.url)],
    guardrails: { requires_approval: ['refund_order'] },
  });
}

/** A new console user of the account, signed in through the email form in a browser of their own. */
async function signedInAs(accountId: string, role: 'owner' | 'admin' | 'agent' | 'viewer', name: string) {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  const user = await ctx.stack.services.consoleSessions.createUser({ accountId, email, password: PASSWORD, role, displayName: name });
  const page = await freshPage();
  await page.goto(`${ctx.stack.baseUrl}/console/sign-in`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('form:has(input[name=email]) button');
  await page.waitForURL((u) => !u.pathname.endsWith('/sign-in'));
  return { page, id: user.id };
}

describe('console: a support team', () => {
  test('an owner invites a teammate on the Team page; the invite link opens the accept page, which signs them in as an agent', async () => {
    const { accountId } = await ctx.stack.newAccount('Acme shop');
    const owner = await signedInAs(accountId, 'owner', 'Olga Owner');
    await signedInAs(accountId, 'viewer', 'Vic Viewer');
    await owner.page.goto(`${ctx.stack.baseUrl}/console/team`);
    await owner.page.fill('[data-invite-form] input[name=email]', 'sam@example.com');
    await owner.page.selectOption('[data-invite-form] select[name=role]', 'agent');
    await owner.page.click('[data-invite-form] button');
    const shown = (await owner.page.textContent('[data-invite-link] [data-secret]'))!.trim();
    assert.match(shown, /\/console\/invites\//);
    // The link names the service's public base URL; this test's server listens on its own port.
    const link = `${ctx.stack.baseUrl}${new URL(shown).pathname}`;
    await owner.page.screenshot({ path: path.join(ARTIFACTS, 'team-page.png'), fullPage: true });

    const sam = await freshPage();
    await sam.goto(link);
    assert.match(await sam.textContent('[data-accept-form]') ?? '', /invited as\s+agent\s+with sam@example.com/);
    await sam.fill('input[name=display_name]', 'Sam Lee');
    await sam.fill('input[name=password]', PASSWORD);
    await sam.screenshot({ path: path.join(ARTIFACTS, 'invite-accept.png'), fullPage: true });
    await sam.click('[data-accept-form] button');
    await sam.waitForURL(/\/console\/inbox/);
    assert.match(await sam.textContent('[data-who]') ?? '', /Sam Lee · agent/);

    // The owner sees Sam on the team; a second visit to the link finds it spent.
    await owner.page.goto(`${ctx.stack.baseUrl}/console/team`);
    assert.match(await owner.page.textContent('[data-team]') ?? '', /Sam Lee[\s\S]*agent/);
    const again = await freshPage();
    const res = await again.goto(link);
    assert.equal(res?.status(), 410);
  });

  test('a viewer can neither reply nor approve; an agent approves a refund in the console and the run goes on', async () => {
    const f = await seedRefundAgent();
    const cnv = await openConversation(f, { customer: { name: 'Chris Customer' } });
    const { run } = await ask(f, cnv, 'Please refund order 12345');
    assert.equal(run.status, 'requires_action', JSON.stringify(run));

    // The viewer: the queue shows the approval badge; the panel has no form; a reply and an approval are refused.
    const viewer = await signedInAs(f.accountId, 'viewer', 'Vic Viewer');
    await viewer.page.goto(`${ctx.stack.baseUrl}/console/inbox?status=handed_off`);
    assert.equal(await viewer.page.locator(`[data-conversation="${cnv}"] [data-approval-badge]`).count(), 1);
    await viewer.page.screenshot({ path: path.join(ARTIFACTS, 'handoff-queue-approval-badge.png'), fullPage: true });
    await viewer.page.goto(`${ctx.stack.baseUrl}/console/inbox/${cnv}`);
    assert.equal(await viewer.page.locator('[data-approval-panel]').count(), 1);
    assert.equal(await viewer.page.locator('[data-approval-form]').isVisible(), false, 'no Approve / Reject for a viewer');
    const csrf = await viewer.page.getAttribute('meta[name="csrf-token"]', 'content');
    const posted = (await viewer.page.context().request.post(`${ctx.stack.baseUrl}/console/runs/${run.id}/approvals`, {
      headers: { accept: 'application/json', 'x-csrf-token': csrf!, origin: ctx.stack.baseUrl },
      data: { tool_call_id: run.required_action.tool_calls[0].id, decision: 'approve' },
    })).status();
    assert.equal(posted, 403, 'a viewer\'s approval is refused by the server too');
    await viewer.page.fill('textarea[name=content]', 'I am only watching');
    await viewer.page.click('text=Send reply');
    assert.match(await viewer.page.textContent('main') ?? '', /needs the agent role or above/);
    const stillWaiting = await f.call('GET', `/v1/runs/${run.id}`);
    assert.equal(stillWaiting.body.status, 'requires_action');
    assert.equal((await f.call('GET', `/v1/conversations/${cnv}/messages`)).body.data.some((m: { content: string }) => m.content === 'I am only watching'), false);

    // The agent approves with a note: the tool is called and the run answers from its result.
    const agent = await signedInAs(f.accountId, 'agent', 'Ada Agent');
    await agent.page.goto(`${ctx.stack.baseUrl}/console/inbox/${cnv}`);
    assert.ok(await agent.page.locator('[data-approval-form]').isVisible());
    await agent.page.fill('[data-approval-form] input[name=note]', 'Order is within the refund window');
    await agent.page.screenshot({ path: path.join(ARTIFACTS, 'approval-panel.png'), fullPage: true });
    await agent.page.click('[data-approval-form] [data-approve]');
    await agent.page.waitForURL(new RegExp(`/console/inbox/${cnv}`));
    const done = await pollUntil('the run to complete', async () => {
      const r = await f.call('GET', `/v1/runs/${run.id}`);
      return r.body.status === 'completed' ? r.body : undefined;
    }, { timeoutMs: 30_000 });
    assert.equal(done.tool_calls[0].result_status, 'ok');
    assert.deepEqual(done.tool_calls[0].approval.approver, { type: 'teammate', id: agent.id, name: 'Ada Agent' });
    assert.ok(done.reply, 'the agent answered after the approval');
    await agent.page.goto(`${ctx.stack.baseUrl}/console/inbox/${cnv}`);
    assert.equal(await agent.page.locator('[data-approval-panel]').count(), 0, 'nothing waits any more');

    // Ada replies: the transcript signs it with her name.
    await agent.page.fill('textarea[name=content]', 'Done: your refund is on its way.');
    await agent.page.click('text=Send reply');
    await agent.page.waitForURL(/done=reply/);
    assert.match(await agent.page.textContent('.transcript') ?? '', /Ada Agent[\s\S]*Done: your refund is on its way\./);
    await agent.page.screenshot({ path: path.join(ARTIFACTS, 'approved-and-signed-reply.png'), fullPage: true });
  });

  test('the test chat shows the approval panel; an agent approves there and the run goes on', async () => {
    const f = await seedRefundAgent();
    const agent = await signedInAs(f.accountId, 'agent', 'Ada Agent');
    await agent.page.goto(`${ctx.stack.baseUrl}/console/agents/${f.agentId}`);
    await agent.page.fill('[data-chat-form] input[name=content]', 'Please refund order 12345');
    await agent.page.click('[data-chat-form] button');
    await agent.page.waitForSelector('[data-chat-log] [data-approval-form]', { timeout: 30_000 });
    await agent.page.fill('[data-chat-log] [data-approval-form] input[name=note]', 'Test refund');
    await agent.page.screenshot({ path: path.join(ARTIFACTS, 'test-chat-approval.png'), fullPage: true });
    await agent.page.click('[data-chat-log] [data-approve]');
    const decided = await agent.page.waitForSelector('[data-chat-log] [data-approval-decided]', { timeout: 30_000 });
    assert.match(await decided.textContent() ?? '', /refund_order approved by Ada Agent/);
    await agent.page.waitForSelector('.run-panel .run', { timeout: 30_000 });
    assert.match(await agent.page.textContent('[data-chat-log]') ?? '', /Refunded: yes/);
  });
});
