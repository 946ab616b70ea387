import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { seedAgent } from '../support/agents';
import { useConsoleBrowser } from '../support/console-browser';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console');
mkdirSync(ARTIFACTS, { recursive: true });

const { signedIn } = useConsoleBrowser(() => ctx.stack.baseUrl);

describe('console: the test chat after a handoff', () => {
  test('shows the notice the customer would get, continues as the customer into the inbox (test badge, unread until opened), and starts a new chat', async () => {
    const f = await seedAgent(ctx.stack, { guardrails: { restricted_topics: ['refund'], restricted_topic_action: 'handoff' } });
    const page = await signedIn(f.apiKey);
    await page.goto(`${ctx.stack.baseUrl}/console/agents/${f.agentId}`);

    await page.fill('[data-chat-form] input[name=content]', 'I want a refund for order 12');
    await page.click('[data-chat-form] button');
    const notice = await page.waitForSelector('[data-handoff-notice]', { timeout: 30_000 });
    assert.match(await notice.textContent() ?? '', /Thanks — a member of our team will reply here\./);
    assert.equal(await page.locator('.bubble.agent').count(), 0, 'no empty agent bubble');
    await page.screenshot({ path: path.join(ARTIFACTS, 'test-chat-handoff-notice.png'), fullPage: true });

    await page.click('[data-continue-as-customer]');
    await page.fill('[data-chat-form] input[name=content]', 'Are you still there?');
    await page.click('[data-chat-form] button');
    const status = await page.waitForSelector('.chat-status:has-text("Sent to the inbox")');
    assert.doesNotMatch(await status.textContent() ?? '', /No run started/);
    const inboxHref = await page.getAttribute('.chat-status a', 'href');
    assert.match(inboxHref ?? '', /^\/console\/inbox\/cnv_/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'test-chat-continued.png'), fullPage: true });

    // The inbox's test view lists it, unread, with its test badge; the customers' view does not.
    await page.goto(`${ctx.stack.baseUrl}/console/inbox`);
    assert.equal(await page.locator('[data-conversation]').count(), 0, 'test chats stay out of the customers\' inbox');
    await page.click('[data-tab-tests]');
    const row = page.locator(`[data-conversation="${inboxHref!.split('/').pop()}"]`);
    assert.equal(await row.locator('[data-unread]').count(), 1);
    assert.equal(await row.locator('[data-test-badge]').count(), 1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'inbox-test-chats.png'), fullPage: true });

    await page.goto(`${ctx.stack.baseUrl}${inboxHref}`);
    const transcript = await page.textContent('.transcript') ?? '';
    assert.match(transcript, /Notice to the customer\s+chat/);
    assert.match(transcript, /Are you still there\?/);
    assert.equal(await page.locator('.page-head [data-test-badge]').count(), 1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'inbox-test-conversation.png'), fullPage: true });
    await page.goto(`${ctx.stack.baseUrl}/console/inbox?test=1`);
    assert.equal(await page.locator(`[data-conversation="${inboxHref!.split('/').pop()}"] [data-unread]`).count(), 0, 'opened: read');

    // New chat: the next message starts a fresh conversation with the agent.
    await page.goto(`${ctx.stack.baseUrl}/console/agents/${f.agentId}`);
    await page.fill('[data-chat-form] input[name=content]', 'I want a refund');
    await page.click('[data-chat-form] button');
    await page.waitForSelector('[data-new-chat-after]', { timeout: 30_000 });
    await page.click('[data-new-chat-after]');
    assert.equal(await page.locator('.bubble').count(), 0);
    await page.fill('[data-chat-form] input[name=content]', 'How do I reset my password?');
    await page.click('[data-chat-form] button');
    await page.waitForSelector('.run-panel .run', { timeout: 30_000 });
    assert.match(await page.textContent('.bubble.agent') ?? '', /Settings/);
  });

  test('queues: business hours set in a form (a bad time zone is shown back as typed) are the API\'s queue', async () => {
    const f = await seedAgent(ctx.stack);
    const page = await signedIn(f.apiKey);
    await page.goto(`${ctx.stack.baseUrl}/console/inbox`);
    await page.click('text=Queues and business hours');
    await page.fill('[data-queue-form] input[name=time_zone]', 'Mars/Olympus');
    await page.click('[data-queue-form] button');
    assert.match(await page.textContent('[data-queue-error]') ?? '', /time_zone: an IANA time zone/);
    assert.equal(await page.inputValue('[data-queue-form] input[name=time_zone]'), 'Mars/Olympus', 'shown back as typed');
    await page.fill('[data-queue-form] input[name=time_zone]', 'Europe/Paris');
    await page.fill('[data-queue-form] input[name=day_wed]', '09:00-12:00, 13:00-17:00');
    await page.fill('[data-queue-form] textarea[name=holidays]', '2026-12-25');
    await page.click('[data-queue-form] button');
    await page.waitForSelector('[data-queue="support"]');
    assert.match(await page.textContent('[data-queue="support"]') ?? '', /wed 09:00-12:00, 13:00-17:00.*2026-12-25/s);
    await page.screenshot({ path: path.join(ARTIFACTS, 'queues.png'), fullPage: true });
    const queues = await f.call('GET', '/v1/queues');
    assert.deepEqual(queues.body.data.map((q: any) => [q.name, q.time_zone, q.weekly_hours.wed, q.holidays]), [['support', 'Europe/Paris', ['09:00-12:00', '13:00-17:00'], ['2026-12-25']]]);
  });

  test("a number with no agent: the customer's SMS is in the inbox for the team, and a reply from the console goes out by SMS", async () => {
    const f = await seedAgent(ctx.stack);
    const scope = { accountId: f.accountId, livemode: f.livemode };
    const teamNumber = '+447400990001';
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ ...scope, number: teamNumber });
    const customer = '+447400990002';
    await ctx.stack.services.inboundSms.onInbound({ carrier: 'sandbox', carrierMessageId: 'mo-team-1', from: customer, to: teamNumber, body: 'Do you deliver on Sundays?', receivedAt: new Date(), sandbox: true });

    const page = await signedIn(f.apiKey);
    await page.goto(`${ctx.stack.baseUrl}/console/inbox?status=handed_off`);
    const row = page.locator('tr[data-conversation]', { hasText: customer });
    assert.match(await row.textContent() ?? '', /none \(team\)/);
    assert.equal(await row.locator('[data-unread]').count(), 1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'inbox-team-number.png'), fullPage: true });
    await row.locator('a').first().click();
    await page.waitForSelector('[data-no-agent]');
    await page.fill('textarea[name=content]', 'Yes, Sundays 10:00 to 14:00.');
    await page.click('text=Send reply');
    await page.waitForURL(/done=reply/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'inbox-team-reply.png'), fullPage: true });
    const sent = await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`);
    assert.deepEqual(sent.body.data.map((m: any) => [m.from, m.body]), [[teamNumber, 'Yes, Sundays 10:00 to 14:00.']]);
  });
});
