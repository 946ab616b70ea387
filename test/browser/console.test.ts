import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureExampleAgent } from '../../src/app/dev-examples';
import { silentLogger } from '../../src/observability/logger';
import { HELP_CENTER, seedAgent, openConversation, ask } from '../support/agents';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { startToolServer } from '../support/tool-server';
import { startSite } from '../integration/knowledge-helpers';

const dataDir = mkdtempSync(path.join(tmpdir(), 'console-test-'));
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { dataDir } });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console');
mkdirSync(ARTIFACTS, { recursive: true });

let browser: Browser;
const loads: Record<string, number> = {};

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
  // First load of each main page (navigation timing: request start to load event), for the report.
  console.log(`console first load (ms): ${JSON.stringify(loads)}`);
});

/** Opens a page, records its first-load time and keeps a screenshot. */
async function visit(page: Page, url: string, name?: string) {
  await page.goto(`${ctx.stack.baseUrl}${url}`);
  if (name) {
    // Browser code as a string: this file is type-checked without the DOM library.
    const ms = await page.evaluate<number>(`(() => { const n = performance.getEntriesByType('navigation')[0]; return Math.round(n.loadEventEnd - n.startTime); })()`);
    loads[name] ??= ms;
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  }
}

async function signedIn(apiKey: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${ctx.stack.baseUrl}/console/sign-in`);
  await page.fill('input[name=secret_key]', apiKey);
  await page.click('text=Sign in with key');
  await page.waitForURL((u) => !u.pathname.startsWith('/console/sign-in'));
  return page;
}

describe('console', () => {
  test('sign-in: a wrong key is refused, a secret key signs in, a console user signs in with a password; pages need a session', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Signin Co');
    const context = await browser.newContext();
    const page = await context.newPage();
    const res = await page.goto(`${ctx.stack.baseUrl}/console/inbox`);
    assert.match(page.url(), /\/console\/sign-in$/, `redirected to sign in (status ${res?.status()})`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sign-in.png') });
    await page.fill('input[name=secret_key]', 'sk_test_wrongwrongwrongwrongwrong');
    await page.click('text=Sign in with key');
    await page.waitForSelector('.error-banner');
    await page.fill('input[name=secret_key]', apiKey);
    await page.click('text=Sign in with key');
    await page.waitForURL((u) => !u.pathname.startsWith('/console/sign-in'));
    assert.match(await page.textContent('.who') ?? '', /Signin Co/);
    // A POST without the CSRF token is refused.
    const forged = await page.evaluate(async () => (await fetch('/console/keys', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x' })).status);
    assert.equal(forged, 403);

    await ctx.stack.services.consoleSessions.createUser({ accountId, email: 'agent.lead@signin.example', password: 'correct horse battery' });
    const other = await (await browser.newContext()).newPage();
    await other.goto(`${ctx.stack.baseUrl}/console/sign-in`);
    await other.fill('input[name=email]', 'agent.lead@signin.example');
    await other.fill('input[name=password]', 'correct horse battery');
    await other.click('button:text("Sign in")');
    await other.waitForURL((u) => !u.pathname.startsWith('/console/sign-in'));
    assert.match(await other.textContent('.who') ?? '', /Signin Co/);
  });

  test('first run: the one-time link npm start prints signs a browser in to the development account, which lands on the home page and offers the example agent', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Development');
    const example = await ensureExampleAgent({ services: ctx.stack.services, accountId, log: silentLogger() });
    const link = await ctx.stack.services.consoleSessions.createSignInLink({ secret: apiKey });
    // Nothing signs a browser in by itself.
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(`${ctx.stack.baseUrl}/console`);
    assert.match(stranger.url(), /\/console\/sign-in$/);
    const page = await (await browser.newContext()).newPage();
    await visit(page, `/console/sign-in/${link.token}`, 'first-run-home');
    // The first stop is the account's home page, which offers the example agent.
    assert.match(new URL(page.url()).pathname, /^\/console\/?$/);
    await page.click('a:text("Try the example agent")');
    await page.waitForURL(new RegExp(`/console/agents/${example.agentId}$`));
    await page.fill('[data-chat-form] input[name=content]', 'How do I reset my password?');
    await page.click('[data-chat-form] button');
    await page.waitForSelector('.run-panel .run', { timeout: 30_000 });
    assert.match(await page.textContent('.bubble.agent') ?? '', /Settings/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'first-run-answered.png'), fullPage: true });
  });

  test('agents: create one with a tool and a knowledge base, see validation next to fields, publish, and get a grounded answer in the test chat', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Agents Co');
    const kb = await ctx.stack.services.knowledgeBases.createBase({ accountId, livemode: false, name: 'Help center' });
    await ctx.stack.services.knowledgeSources.addSource({ principal: { accountId, keyId: 't', mode: 'test' }, knowledgeBaseId: kb.id, type: 'record', records: HELP_CENTER, refresh: 'manual' });
    const tools = await startToolServer();
    try {
      const page = await signedIn(apiKey);
      await visit(page, '/console/agents', 'agents');
      await visit(page, '/console/agents/new', 'agent-new');
      await page.fill('input[name=name]', 'Helpdesk');
      await page.check(`input[name=kb][value=${kb.id}]`);
      await page.fill('input[name=confidence_floor]', '0.5');
      await page.click('[data-add-tool]');
      await page.fill('input[name="tools.0.name"]', 'lookup_order');
      await page.fill('input[name="tools.0.description"]', 'Look up the status of an order by its order number');
      await page.fill('textarea[name="tools.0.parameters"]', '{"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"');
      await page.fill('input[name="tools.0.endpoint"]', `${tools.url}/orders`);
      await page.click('button:text("Create draft")');
      // The broken JSON Schema is reported next to its field and the values are kept.
      const fieldError = await page.textContent('.field-error[data-field="tools.0.parameters"]');
      assert.match(fieldError ?? '', /JSON/);
      assert.equal(await page.inputValue('input[name="tools.0.name"]'), 'lookup_order');
      await page.screenshot({ path: path.join(ARTIFACTS, 'agent-validation.png'), fullPage: true });
      await page.fill('textarea[name="tools.0.parameters"]', '{"type": "object", "properties": {"order_id": {"type": "string", "pattern": "^A[0-9]{4}$"}}, "required": ["order_id"]}');
      await page.click('button:text("Create draft")');
      await page.waitForURL(/\/console\/agents\/agt_/);
      const agentId = page.url().split('/').pop()!.split('?')[0]!;
      const draft = await ctx.stack.services.agents.getDraft({ accountId, livemode: false, agentId });
      assert.deepEqual(draft.draft.tools.map((t) => t.name), ['lookup_order']);
      assert.deepEqual(draft.draft.knowledge_bases.map((k) => k.id), [kb.id]);

      await page.click('button:text("Publish")');
      await page.waitForSelector('text=version 1 is live');
      assert.equal((await ctx.stack.services.agents.getAgent({ accountId, livemode: false, agentId })).status, 'live');
      await visit(page, `/console/agents/${agentId}`, 'agent');

      await page.fill('[data-chat-form] input[name=content]', 'How do I reset my password?');
      await page.click('[data-chat-form] button');
      await page.waitForSelector('.run-panel .run', { timeout: 30_000 });
      assert.match(await page.textContent('.bubble.agent') ?? '', /Reset password/);
      assert.ok(await page.$('.run-panel .passages li.cited'), 'the cited passage is shown');
      await page.fill('[data-chat-form] input[name=content]', 'Where is my order A1234?');
      await page.click('[data-chat-form] button');
      await pollUntil('the tool to be called', () => tools.requests.length > 0);
      await page.waitForFunction(`document.querySelectorAll('.run-panel').length === 2`, undefined, { timeout: 30_000 });
      assert.match(await page.textContent('.run-panel:nth-of-type(2), .run-panel >> nth=1') ?? '', /lookup_order/);
      await page.screenshot({ path: path.join(ARTIFACTS, 'agent-test-chat.png'), fullPage: true });
      // Test conversations stay out of the inbox.
      const listed = await ctx.stack.services.conversations.listConversations({ accountId, livemode: false, page: { limit: 10 } });
      assert.equal(listed.data.length, 0);

      // Edit, then see what changed between version 1 and the draft.
      await page.fill('input[name=default_queue]', 'billing');
      await page.click('button:text("Save draft")');
      await page.waitForSelector('text=Draft saved');
      await visit(page, `/console/agents/${agentId}/versions?a=1&b=draft`, 'agent-versions');
      assert.match(await page.textContent('table.diff') ?? '', /handoff\.default_queue[\s\S]*support[\s\S]*billing/);
    } finally {
      await tools.close();
    }
  });

  test('knowledge: add a url source and watch it become ready, then query it', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Knowledge Co');
    const site = await startSite({ '/help/returns': { body: '<html><head><title>Returns</title></head><body><main><h1>Returns</h1><p>Items can be returned within 60 days with the receipt, free of charge.</p></main></body></html>' } });
    try {
      const kb = await ctx.stack.services.knowledgeBases.createBase({ accountId, livemode: false, name: 'Site' });
      const page = await signedIn(apiKey);
      await visit(page, '/console/knowledge', 'knowledge');
      await visit(page, `/console/knowledge/${kb.id}`, 'knowledge-base');
      await page.fill('input[name=url]', `${site.url}/help/returns`);
      await page.click('button:text("Add source")');
      await page.waitForSelector('tr[data-source-id] .badge-indexing, tr[data-source-id] .badge-ready');
      await page.waitForSelector('tr[data-source-id] .badge-ready', { timeout: 30_000 });
      await page.screenshot({ path: path.join(ARTIFACTS, 'knowledge-source-ready.png'), fullPage: true });
      await page.fill('input[name=q]', 'How long do I have to return an item?');
      await page.click('button:text("Search")');
      await page.waitForSelector('.passages li .score');
      assert.match(await page.textContent('.passages') ?? '', /60 days/);
      // Scores read as percentages, with the legend saying what they mean.
      assert.match(await page.textContent('.passages li .score') ?? '', /^(<1|>99|\d{1,3}) %$/);
      assert.match(await page.textContent('.legend') ?? '', /chance that the passage answers the question/);
      await page.screenshot({ path: path.join(ARTIFACTS, 'knowledge-query.png'), fullPage: true });
    } finally {
      await site.close();
    }
  });

  test('inbox: take a handed-off conversation, reply as a human and close the handoff; another account cannot see it', async () => {
    const f = await seedAgent(ctx.stack);
    const conversationId = await openConversation(f, { customer: { name: 'Dana Customer' }, tags: ['vip'] });
    const answered = await ask(f, conversationId, 'Can I pay with bitcoin?');
    assert.equal(answered.run.handoff?.reason, 'no_supporting_source');

    const page = await signedIn(f.apiKey);
    await visit(page, '/console/inbox?status=handed_off', 'inbox-handoff-queue');
    await page.click('text=Dana Customer');
    await page.waitForURL(new RegExp(`/console/inbox/${conversationId}$`));
    await visit(page, `/console/inbox/${conversationId}`, 'inbox-conversation');
    assert.match(await page.textContent('.handoff-box') ?? '', /no supporting source/);
    assert.ok(await page.$(`a[href*="/workflows/run_"]`), 'each run links to its Temporal history');
    await page.click('[data-use-suggested]');
    await page.fill('[data-reply]', 'Not yet, but card and PayPal both work.');
    await page.click('button:text("Send reply")');
    await page.waitForSelector('text=Reply sent.');
    await page.fill('input[name=note]', 'Answered payment question');
    await page.click('button:text("Close handoff")');
    await page.waitForSelector('text=Handoff closed');
    const c = await ctx.stack.services.conversations.getConversation({ accountId: f.accountId, livemode: false, conversationId });
    assert.equal(c.status, 'active');
    const messages = await ctx.stack.services.conversations.listMessages({ accountId: f.accountId, livemode: false, conversationId, page: { limit: 10 } });
    assert.ok(messages.data.some((m) => m.role === 'human' && /PayPal/.test(m.content)));

    // Another account: none of it shows, and its URLs answer 404.
    const other = await ctx.stack.newAccount('Other Co');
    const otherPage = await signedIn(other.apiKey);
    await visit(otherPage, '/console/inbox');
    assert.doesNotMatch(await otherPage.content(), /Dana Customer/);
    const res = await otherPage.goto(`${ctx.stack.baseUrl}/console/inbox/${conversationId}`);
    assert.equal(res?.status(), 404);
    const agentRes = await otherPage.goto(`${ctx.stack.baseUrl}/console/agents/${f.agentId}`);
    assert.equal(agentRes?.status(), 404);
    await visit(otherPage, '/console/agents');
    assert.doesNotMatch(await otherPage.content(), new RegExp(f.agentId));
  });

  test('webhooks, keys and numbers: secrets shown once, rotate, disable; keys created and revoked; a number gets its agent', async () => {
    const f = await seedAgent(ctx.stack);
    const number = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: f.accountId, livemode: false, number: '+14155550123' });
    const page = await signedIn(f.apiKey);
    await visit(page, '/console/webhooks', 'webhooks');
    await page.fill('input[name=url]', 'https://example.com/hooks');
    await page.click('button:text("Add endpoint")');
    assert.match(await page.textContent('[data-secret]') ?? '', /^whsec_/);
    await page.click('button:text("Disable")');
    await page.waitForSelector('.badge-disabled');
    await visit(page, '/console/keys', 'keys');
    await page.fill('input[name=name]', 'backend');
    await page.click('button:text("Create key")');
    const secret = (await page.textContent('[data-secret]'))!;
    assert.match(secret, /^sk_test_/);
    assert.equal((await ctx.stack.services.accounts.authenticate(secret)).accountId, f.accountId);
    await visit(page, '/console/numbers', 'numbers');
    await page.selectOption(`form[action="/console/numbers/${number.id}/agent"] select`, f.agentId);
    await page.click(`form[action="/console/numbers/${number.id}/agent"] button`);
    await page.waitForSelector('text=is answered by the agent now');
    assert.equal((await ctx.stack.services.phoneNumbers.getPhoneNumber({ accountId: f.accountId, livemode: false, phoneNumberId: number.id })).agent_id, f.agentId);
  });

  test('email addresses, call flows and calls: the objects the CLI alone reached are in the console', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms', 'email', 'voice'] });
    const scope = { accountId: f.accountId, livemode: false };
    const number = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ ...scope, number: '+14155550124' });
    const page = await signedIn(f.apiKey);

    await visit(page, '/console/email');
    await page.fill('form[action="/console/email"] input[name=address]', 'help@console-test.example');
    await page.fill('form[action="/console/email"] input[name=display_name]', 'Console Help');
    await page.selectOption('form[action="/console/email"] select', f.agentId);
    await page.click('button:text("Add address")');
    await page.waitForSelector('text=The address is registered.');
    const [address] = await ctx.stack.services.emailAddresses.listAddresses(scope);
    assert.equal(address?.agent_id, f.agentId);
    await visit(page, '/console/email', 'email-addresses');
    await page.fill('form[action="/console/email"] input[name=address]', 'help@console-test.example');
    await page.click('button:text("Add address")');
    assert.match(await page.textContent('.error-banner') ?? '', /already registered/);

    await visit(page, '/console/numbers');
    await page.click(`form[action="/console/numbers/${number.id}/call_flow"] >> xpath=..`);
    const flow = { actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: '+14155550199' }], record: true };
    await page.fill(`form[action="/console/numbers/${number.id}/call_flow"] textarea`, JSON.stringify(flow));
    await page.click(`form[action="/console/numbers/${number.id}/call_flow"] button`);
    await page.waitForSelector('text=The call flow is saved.');
    assert.match(await page.textContent('tbody') ?? '', /answered by Support, handoffs to \+14155550199 · recorded/);
    await page.click('text=answered by Support');
    await page.screenshot({ path: path.join(ARTIFACTS, 'numbers-call-flow.png'), fullPage: true });
    const saved = await ctx.stack.services.phoneNumbers.getPhoneNumber({ ...scope, phoneNumberId: number.id });
    assert.equal(saved.voice_call_flow?.record, true);

    const call = await f.call('POST', '/v1/test_helpers/calls', { from: '+14155550142', to: number.number });
    await f.call('POST', `/v1/test_helpers/calls/${call.body.call.id}/speech`, { speech: 'How long does standard shipping take?' });
    await f.call('POST', `/v1/test_helpers/calls/${call.body.call.id}/hangup`, { duration_seconds: 75 });
    await visit(page, '/console/calls', 'calls');
    const row = await page.textContent('tbody tr') ?? '';
    assert.match(row, /\+14155550142/);
    assert.match(row, /completed/);
    assert.match(row, /75 s/);
    assert.ok(await page.$('tbody tr a[href^="/console/inbox/cnv_"]'), 'the call links to its transcript');
  });
});
