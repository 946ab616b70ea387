/**
 * The README's "For support teams" screenshots (docs/images/), taken with headless Chromium from a seeded
 * console: `node --import tsx --test scripts/readme-screenshots.ts` (the test stack of test/support, so
 * DATABASE_URL and the Temporal CLI as the tests use them; CHROMIUM_PATH, else /usr/bin/chromium). Not part
 * of the test suite (it lives outside test/): run it again when the inbox's look changes.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { ask, openConversation, refundTool, seedAgent } from '../test/support/agents';
import { useTestStack } from '../test/support/stack';
import { json, useToolServer } from '../test/support/tool-server';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const tools = useToolServer();
const IMAGES = path.resolve(__dirname, '../docs/images');
const PASSWORD = 'correct horse battery';

let browser: Browser | undefined;
before(async () => {
  mkdirSync(IMAGES, { recursive: true });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
});
after(async () => browser?.close());

test('screenshots of the inbox with the handoff queue and of a conversation with a note and an approval', async () => {
  tools.handle((req, res) => json(res, 200, { refunded: true, amount: '42.00', order_id: req.body.arguments.order_id }));
  const f = await seedAgent(ctx.stack, {
    name: 'Shop assistant',
    tools: [refundTool(tools.url)],
    guardrails: { requires_approval: ['refund_order'], restricted_topics: ['lawyer'], restricted_topic_action: 'handoff' },
  });
  const dana = await ctx.stack.services.consoleSessions.createUser({ accountId: f.accountId, email: 'dana@shop.example', password: PASSWORD, role: 'agent', displayName: 'Dana' });
  await ctx.stack.services.consoleSessions.createUser({ accountId: f.accountId, email: 'sam@shop.example', password: PASSWORD, role: 'agent', displayName: 'Sam' });

  // A few conversations: two handed off, one waiting for an approval, one the agent answered.
  const answered = await openConversation(f, { customer: { name: 'Lena Fischer', email: 'lena@example.com' } });
  await ask(f, answered, 'How long does standard shipping take?');
  const handedOff = await openConversation(f, { channel: 'sms', customer: { name: 'Omar Haddad', phone: '+447400123456' } });
  await f.call('POST', `/v1/conversations/${handedOff}/messages`, { role: 'customer', content: 'My lawyer says the sofa was delivered damaged.' });
  const other = await openConversation(f, { customer: { name: 'Jonas Weber', email: 'jonas@example.com' } });
  await f.call('POST', `/v1/conversations/${other}/messages`, { role: 'customer', content: 'I need to talk to a lawyer about my invoice.' });
  const refund = await openConversation(f, { customer: { name: 'Chris Martin', email: 'chris@example.com' } });
  const { run } = await ask(f, refund, 'Please refund order 12345, the lamp arrived broken');
  assert.equal(run.status, 'requires_action', JSON.stringify(run));
  await ctx.stack.services.inbox.assign({ accountId: f.accountId, livemode: f.livemode, conversationId: refund, userId: dana.id });

  const page = await (await browser!.newContext({ viewport: { width: 1400, height: 860 } })).newPage();
  await page.goto(`${ctx.stack.baseUrl}/console/sign-in`);
  await page.fill('input[name=email]', 'dana@shop.example');
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button:has-text("Sign in"):not(:has-text("key"))');
  await page.waitForURL((u) => !u.pathname.startsWith('/console/sign-in'));

  await page.goto(`${ctx.stack.baseUrl}/console/inbox?tab=queue`);
  await page.locator(`[data-conversation="${refund}"] [data-approval-badge]`).waitFor();
  await page.screenshot({ path: path.join(IMAGES, 'inbox-handoff-queue.png') });

  // Dana leaves a note for the team, as a teammate does in the console.
  await page.goto(`${ctx.stack.baseUrl}/console/inbox/${refund}`);
  await page.fill('textarea[placeholder^="A note for the team"]', 'Photo of the broken lamp is in the email thread; approve the refund.');
  await page.click('button:has-text("Add note")');
  await page.waitForURL((u) => u.search.includes('done=note'));
  await page.locator('[data-approval-form]').waitFor();
  await page.screenshot({ path: path.join(IMAGES, 'conversation-note-approval.png'), fullPage: true });

  // Not for the README: the queue form with its teammates, to look at (test-artifacts/console).
  const queue = await f.call('POST', '/v1/queues', { name: 'support', time_zone: 'Europe/Berlin', teammate_ids: [dana.id] });
  assert.equal(queue.status, 201, JSON.stringify(queue.body));
  await page.goto(`${ctx.stack.baseUrl}/console/queues?edit=${queue.body.id}`);
  const artifacts = path.resolve(__dirname, '../test-artifacts/console');
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, 'queue-teammates.png'), fullPage: true });
});
