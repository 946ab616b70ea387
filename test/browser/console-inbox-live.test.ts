import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openConversation, seedAgent } from '../support/agents';
import { useConsoleBrowser } from '../support/console-browser';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console');
mkdirSync(ARTIFACTS, { recursive: true });

const { signedInAs } = useConsoleBrowser(() => ctx.stack.baseUrl);

/** Browser notifications as the page shows them (a headless browser has no notification centre). */
const RECORD_NOTIFICATIONS = `window.__notifications = [];
  window.Notification = class { constructor(title, o) { window.__notifications.push({ title, body: o && o.body }); } static requestPermission() { return Promise.resolve('granted'); } };
  window.Notification.permission = 'granted';`;

describe('console: two teammates work the live inbox', () => {
  before(async () => {
    await ctx.stack.services.conversationEvents.listen();
  });
  after(async () => {
    await ctx.stack.services.conversationEvents.close();
  });

  test('the agent hands off, the inbox shows it live with a notification; Ana claims it, notes, inserts a saved reply; Ben sees it assigned', async () => {
    const f = await seedAgent(ctx.stack, { guardrails: { restricted_topics: ['refund'], restricted_topic_action: 'handoff' } });
    const password = 'correct horse battery';
    await ctx.stack.services.consoleSessions.createUser({ accountId: f.accountId, email: 'ana@shop.test', password });
    await ctx.stack.services.consoleSessions.createUser({ accountId: f.accountId, email: 'ben@shop.test', password });
    const saved = await f.call('POST', '/v1/saved_replies', { name: 'Refund received', content: 'Hi {{customer.name|there}}, {{agent.name}} here: your refund request is with us.' });
    assert.equal(saved.status, 201);
    // An earlier conversation of the same customer (on SMS) for the customer panel.
    const earlier = await openConversation(f, { channel: 'sms', customer: { name: 'Mia Rossi', email: 'mia@example.com', phone: '+447400123456' } });
    await f.call('POST', `/v1/conversations/${earlier}/messages`, { role: 'customer', content: 'Where is my parcel?', trigger_run: false });
    await f.call('POST', `/v1/conversations/${earlier}/close`);

    const ana = await signedInAs('ana@shop.test', password, { initScript: RECORD_NOTIFICATIONS });
    const ben = await signedInAs('ben@shop.test', password);
    await ana.goto(`${ctx.stack.baseUrl}/console/inbox?tab=queue`);
    await ben.goto(`${ctx.stack.baseUrl}/console/inbox`);
    await ana.waitForFunction('window.__inboxStream && window.__inboxStream.readyState === 1');
    await ben.waitForFunction('window.__inboxStream && window.__inboxStream.readyState === 1');

    // The customer (the API) writes; the agent hands off: the notice goes to the customer, the inbox shows it without a reload.
    const cnv = await openConversation(f, { customer: { name: 'Mia Rossi', email: 'mia@example.com' }, metadata: { plan: 'gold', order: '1042' } });
    const posted = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'customer', content: 'I want a refund for order 1042' });
    assert.equal(posted.body.run.handoff?.reason, 'restricted_topic', JSON.stringify(posted.body.run));
    const transcript = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(transcript.body.data.map((m: any) => m.role), ['customer', 'system'], 'the customer got the notice');
    const row = ana.locator(`tr[data-conversation="${cnv}"]`);
    await row.waitFor({ timeout: 20_000 });
    assert.match(await row.textContent() ?? '', /Mia Rossi/);
    assert.equal(await row.locator('[data-unread]').count(), 1);
    assert.equal(await ana.textContent('[data-count="queue"]'), '1');
    await ana.waitForFunction('window.__notifications.length > 0');
    assert.match(JSON.stringify(await ana.evaluate('window.__notifications')), /Mia Rossi needs the team/);
    await ben.locator(`tr[data-conversation="${cnv}"]`).waitFor({ timeout: 20_000 });
    await ana.screenshot({ path: path.join(ARTIFACTS, 'inbox-live-queue.png'), fullPage: true });

    // Ana opens it: the customer panel, claims it, writes a note, inserts the saved reply and sends it.
    await row.locator('a').first().click();
    await ana.waitForSelector('[data-customer-panel]');
    assert.match(await ana.textContent('[data-customer]') ?? '', /mia@example\.com[\s\S]*plan[\s\S]*gold/);
    assert.match(await ana.textContent('[data-past-conversations]') ?? '', /sms/);
    await ana.click('[data-claim]');
    await ana.waitForURL(/done=claimed/);
    assert.match(await ana.textContent('[data-assignee-name]') ?? '', /ana@shop\.test/);
    await ana.fill('[data-note-form] textarea', 'Gold customer: refund without the usual questions.');
    await ana.click('[data-note-form] button');
    await ana.waitForURL(/done=note/);
    assert.match(await ana.textContent('[data-notes]') ?? '', /Gold customer/);
    await ana.click('[data-saved-reply-insert]');
    await ana.waitForFunction("document.querySelector('[data-reply]').value.length > 0");
    assert.equal(await ana.inputValue('[data-reply]'), 'Hi Mia Rossi, ana@shop.test here: your refund request is with us.');
    await ana.screenshot({ path: path.join(ARTIFACTS, 'inbox-live-conversation.png'), fullPage: true });
    await ana.click('text=Send reply');
    await ana.waitForURL(/done=reply/);

    // Ben's open inbox shows the assignee without a reload; the note is not in the customer's transcript.
    await ben.waitForSelector(`tr[data-conversation="${cnv}"] td[data-assignee]:has-text("ana@shop.test")`, { timeout: 20_000 });
    await ben.screenshot({ path: path.join(ARTIFACTS, 'inbox-live-assigned.png'), fullPage: true });
    const after = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(after.body.data.map((m: any) => [m.role, m.content]).slice(2), [['human', 'Hi Mia Rossi, ana@shop.test here: your refund request is with us.']]);
    assert.doesNotMatch(JSON.stringify(after.body), /Gold customer/);
    await ben.goto(`${ctx.stack.baseUrl}/console/inbox?tab=mine`);
    assert.equal(await ben.locator(`tr[data-conversation="${cnv}"]`).count(), 0, 'not in Ben\'s Mine tab');
  });
});
