import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { seedAgent } from '../support/agents';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console');
mkdirSync(ARTIFACTS, { recursive: true });

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
});

async function signedIn(apiKey: string) {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${ctx.stack.baseUrl}/console/sign-in`);
  await page.fill('input[name=secret_key]', apiKey);
  await page.click('text=Sign in with key');
  await page.waitForURL(/\/console\/agents/);
  return page;
}

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
});
