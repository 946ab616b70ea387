import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { seedAgent, type AgentFixture } from '../support/agents';
import { pollUntil } from '../support/poll';
import { startTestStack, type TestStack } from '../support/stack';
import { StreamingProvider } from '../support/streaming-provider';
import { TcpProxy } from '../support/tcp-proxy';
import { createDevServerEnv } from '../support/temporal';
import { nowSeconds, signJwt } from '../support/widget';
import { shopPage, WidgetHostPage } from '../support/widget-page';

/** The page's globals, in functions Playwright runs in the browser (this project compiles without the DOM library). */
declare const window: any, document: any, localStorage: any, sessionStorage: any, getComputedStyle: any;

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/widget');
mkdirSync(ARTIFACTS, { recursive: true });

const provider = new StreamingProvider();
const shop = new WidgetHostPage();
let env: TestWorkflowEnvironment;
let stack: TestStack;
let proxy: TcpProxy;
let browser: Browser;
let f: AgentFixture;
let pk: string;
/** The service as the shop's pages reach it: through a proxy this file can cut (a dropped network). */
let base: string;

before(async () => {
  await provider.start();
  await shop.start();
  env = await createDevServerEnv();
  stack = await startTestStack({
    label: __filename,
    env,
    config: { planner: { provider: 'openai', baseUrl: `${provider.baseUrl}/v1`, model: 'widget-test', timeoutMs: 30_000 } } as never,
  });
  await stack.services.conversationEvents.listen();
  proxy = new TcpProxy({ host: '127.0.0.1', port: Number(new URL(stack.baseUrl).port) });
  base = `http://127.0.0.1:${await proxy.start()}`;
  f = await seedAgent(stack, { name: 'Acme' });
  const key = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: [shop.origin] });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  pk = key.body.key;
  shop.html = () => shopPage({ base, key: pk, agentId: f.agentId });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
  await proxy?.cut();
  await stack?.services.conversationEvents.close();
  await stack?.close();
  await env?.teardown();
  await shop.stop();
  await provider.stop();
});

/**
 * The provider's next answer: `first` at once, then (once `release()` is called) `rest`, a few ms apart, then
 * the end. `finished()` tells whether the provider has sent its last chunk.
 */
function nextReply(first: string[], rest: string[]) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let finished = false;
  provider.handle = async (_body, send) => {
    send.openAiChunk({ role: 'assistant', content: '' });
    for (const p of first) send.openAiChunk({ content: p });
    await released;
    for (const p of rest) {
      await new Promise((r) => setTimeout(r, 20));
      send.openAiChunk({ content: p });
    }
    send.openAiDone();
    finished = true;
  };
  return { release, finished: () => finished };
}

async function openShop(viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
  if (process.env.WIDGET_TEST_DEBUG) page.on('console', (m) => console.log(`[page] ${m.text()}`));
  await page.goto(`${shop.origin}/`);
  await page.locator('converse-widget .launcher').waitFor();
  return page;
}

const w = (page: Page, selector: string) => page.locator(`converse-widget ${selector}`);

async function ask(page: Page, text: string) {
  if (!(await w(page, '.dialog').isVisible())) await w(page, '.launcher').click();
  await w(page, 'textarea').fill(text);
  await w(page, 'textarea').press('Enter');
}

/** The widget's bubbles as [role, text] (the name line left out). */
async function bubbles(page: Page): Promise<Array<[string, string]>> {
  return w(page, '.msg').evaluateAll((nodes) =>
    nodes.map((n) => [['customer', 'agent', 'human', 'system'].find((r) => n.classList.contains(r)) ?? '?', n.querySelector('.text')?.textContent ?? ''] as [string, string]));
}

/** The widget's conversation id, as the widget keeps it in the visitor's storage. */
const storedConversation = (page: Page) => page.evaluate((key) => JSON.parse(localStorage.getItem(`converse:${key}`) ?? '{}').conversation as string | undefined, pk);

const transcript = async (cnv: string) => (await f.call('GET', `/v1/conversations/${cnv}/messages?limit=100`)).body.data.map((m: any) => [m.role, m.content]);

describe('the website widget on a shop page of another origin', () => {
  it('streams the first words before the reply is complete, shows its citations, and restores the conversation after a reload', async () => {
    const page = await openShop();
    await page.screenshot({ path: path.join(ARTIFACTS, 'launcher-closed.png') });
    const reply = nextReply(['Standard ', 'shipping ', 'usually ', 'arrives '], ['within ', 'five ', 'business ', 'days ', '[1]', '.']);
    await ask(page, 'How long does standard shipping take?');

    const streaming = w(page, '.msg.agent.streaming .text');
    await pollUntil('the first words in the widget', async () => /^Standard shipping/.test((await streaming.textContent().catch(() => '')) ?? ''));
    assert.equal(reply.finished(), false, 'the first words show while the provider is still answering');
    reply.release();

    const link = w(page, '.msg.agent .sources a');
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), 'https://help.example.com/shipping');
    assert.equal(await link.textContent(), 'Shipping times');
    const cnv = (await storedConversation(page))!;
    const shown = await bubbles(page);
    assert.deepEqual(shown, await transcript(cnv), 'the widget shows the stored transcript, the streamed reply equal to the stored one');
    assert.deepEqual(shown.at(-1), ['agent', 'Standard shipping usually arrives within five business days.']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'open-streamed-answer.png') });
    await page.screenshot({ path: path.join(ARTIFACTS, 'readme.png'), clip: { x: 860, y: 96, width: 420, height: 700 } });

    await page.reload();
    await w(page, '.launcher').click();
    await w(page, '.msg.agent .sources a').waitFor();
    assert.deepEqual(await bubbles(page), shown, 'restored once each, in order');
    assert.equal(await w(page, '.msg.agent .sources a').getAttribute('href'), 'https://help.example.com/shipping');
    assert.equal(await storedConversation(page), cnv);
    await page.context().close();
  });

  it('shows the handoff, a person typing and their reply live, and passes an axe-core check with no serious or critical violation', async () => {
    const page = await openShop();
    const seen = page.evaluate(() => new Promise<any[]>((resolve) => {
      const got: any[] = [];
      (window as any).Converse.on('message', (m: any) => { got.push(m); if (m.role === 'human') resolve(got); });
    }));
    provider.handle = async (_body, send) => {
      send.openAiChunk({ role: 'assistant', content: '' });
      send.openAiChunk({ tool_calls: [{ index: 0, id: 'call_h', type: 'function', function: { name: 'handoff_to_human', arguments: '' } }] });
      send.openAiChunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ reason: 'customer_requested', summary: 'Wants a person', suggested_reply: 'Hello!' }) } }] });
      send.openAiDone();
    };
    await ask(page, 'I would like to talk to a person, please.');
    await w(page, '.banner').waitFor();
    assert.equal(await w(page, '.banner').textContent(), 'A person will reply here.');

    const cnv = (await storedConversation(page))!;
    await stack.services.conversationStream.signalTyping({ accountId: f.accountId, livemode: false, conversationId: cnv });
    await w(page, '.typing').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'handoff.png') });
    const human = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Hi, I am Sam from the support team. How can I help?' });
    assert.equal(human.status, 201);
    await w(page, '.msg.human').waitFor();
    assert.equal(await w(page, '.msg.human .text').textContent(), 'Hi, I am Sam from the support team. How can I help?');
    assert.equal(await w(page, '.typing').isVisible(), false, 'the reply ends the typing indicator');
    const events = await seen;
    assert.deepEqual(events.map((m) => m.role).filter((r) => r !== 'system'), ['customer', 'human'], "the page's on('message') hears each message once");

    await page.addScriptTag({ content: readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') });
    const violations = await page.evaluate(async () => {
      const result = await (window as any).axe.run({ include: [['converse-widget']] }, { resultTypes: ['violations'] });
      return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(' ')) }));
    });
    assert.deepEqual(violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical'), [], JSON.stringify(violations));
    await page.context().close();
  });

  it('keeps focus in the open dialog, closes on Escape, and speaks German to a German browser', async () => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${shop.origin}/`);
    await w(page, '.launcher').click();
    assert.equal(await w(page, '[role=dialog]').getAttribute('aria-modal'), 'true');
    assert.equal(await w(page, 'textarea').getAttribute('placeholder'), 'Nachricht eingeben…');
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab');
    const inside = await page.evaluate(() => {
      const root = document.querySelector('converse-widget')!.shadowRoot!;
      return !!root.activeElement && root.querySelector('[role=dialog]')!.contains(root.activeElement);
    });
    assert.ok(inside, 'Tab stays inside the dialog');
    await page.keyboard.press('Escape');
    assert.equal(await w(page, '[role=dialog]').isVisible(), false);
    assert.equal(await page.evaluate(() => document.querySelector('converse-widget')!.shadowRoot!.activeElement?.className), 'launcher', 'focus returns to the launcher');
    await context.close();
  });

  it('survives a dropped connection while a reply streams: nothing lost, nothing repeated', async () => {
    const page = await openShop();
    const reply = nextReply(['Refunds ', 'are ', 'issued ', 'to ', 'your ', 'original ', 'payment ', 'method '], ['within ', 'fourteen ', 'days ', '[1]', '.']);
    await ask(page, 'When do I get my refund?');
    await pollUntil('the first words', async () => /^Refunds are/.test((await w(page, '.msg.agent.streaming .text').textContent().catch(() => '')) ?? ''));
    const cnv = (await storedConversation(page))!;

    await proxy.cut();
    await w(page, '.status').waitFor();
    reply.release();
    await pollUntil('the reply to be stored', async () => (await transcript(cnv)).some(([role]: string[]) => role === 'agent'));
    await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Written while you were offline.' });
    await proxy.restore();

    await w(page, '.msg.human').waitFor();
    await pollUntil('the reconnected widget to settle', async () => (await w(page, '.msg.agent.streaming').count()) === 0 && !(await w(page, '.status').isVisible()));
    assert.deepEqual(await bubbles(page), await transcript(cnv));
    assert.deepEqual((await bubbles(page)).filter(([r]) => r === 'agent'), [['agent', 'Refunds are issued to your original payment method within fourteen days.']]);
    await page.context().close();
  });

  it('continues the anonymous conversation once the page identifies the visitor with a JWT', async () => {
    const secret = await f.call('POST', `/v1/agents/${f.agentId}/identity_secrets`, {});
    const jwt = signJwt({ alg: 'HS256', typ: 'JWT', kid: secret.body.id }, { sub: 'cus_widget_1', name: 'Ada', exp: nowSeconds() + 600 }, secret.body.secret);
    const page = await openShop();
    nextReply(['Standard ', 'shipping ', 'takes ', 'a ', 'week ', '[1]', '.'], []).release();
    await ask(page, 'How long does standard shipping take?');
    await pollUntil('the reply', async () => (await w(page, '.msg.agent:not(.streaming)').count()) === 1);
    const cnv = (await storedConversation(page))!;

    await page.evaluate((token) => (window as any).Converse.identify(token), jwt);
    nextReply(['Refunds ', 'take ', 'fourteen ', 'days ', '[1]', '.'], []).release();
    await ask(page, 'And refunds?');
    await pollUntil('the second reply', async () => (await w(page, '.msg.agent:not(.streaming)').count()) === 2);
    assert.equal(await storedConversation(page), cnv, 'the same conversation');
    const conversation = await f.call('GET', `/v1/conversations/${cnv}`);
    assert.equal(conversation.body.customer.id, 'cus_widget_1');
    assert.deepEqual((await transcript(cnv)).filter(([r]: string[]) => r === 'customer').length, 2);

    // The next page view identifies the visitor again: the conversation, now the customer's, comes back.
    shop.html = () => shopPage({ base, key: pk, agentId: f.agentId, extraHead: `<script>window.Converse = { q: [['identify', ${JSON.stringify(jwt)}]] };</script>` });
    try {
      await page.reload();
      await w(page, '.launcher').click();
      await pollUntil('the restored conversation', async () => (await w(page, '.msg').count()) === 4);
      assert.deepEqual(await bubbles(page), await transcript(cnv));
    } finally {
      shop.html = () => shopPage({ base, key: pk, agentId: f.agentId });
    }
    await page.context().close();
  });

  it("is not broken by the page's hostile CSS, and fits a phone's screen", async () => {
    const hostile = `<style>
      * { font-size: 40px !important; color: transparent !important; background: red !important; }
      div, button, textarea, form, header { display: none !important; }
      converse-widget { display: none !important; visibility: hidden !important; transform: translateX(-9999px) !important; }
      body * { opacity: 0 !important; }
    </style>`;
    shop.html = () => shopPage({ base, key: pk, agentId: f.agentId, extraHead: hostile });
    try {
      const page = await openShop({ width: 390, height: 844 });
      await w(page, '.launcher').click();
      const dialog = w(page, '[role=dialog]');
      await dialog.waitFor();
      const box = (await dialog.boundingBox())!;
      assert.deepEqual([box.x, box.width, Math.round(box.height)], [0, 390, 844], 'full screen on a phone');
      const look = await w(page, 'textarea').evaluate((n) => {
        const s = getComputedStyle(n);
        return { fontSize: s.fontSize, color: s.color, display: s.display };
      });
      assert.deepEqual(look, { fontSize: '15px', color: 'rgb(17, 24, 39)', display: 'block' });
      nextReply(['Open ', 'Settings, ', 'then ', 'Security ', '[1]', '.'], []).release();
      await ask(page, 'How do I reset my password?');
      await pollUntil('the reply', async () => (await w(page, '.msg.agent:not(.streaming)').count()) === 1);
      await page.screenshot({ path: path.join(ARTIFACTS, 'mobile.png') });
      await page.context().close();
    } finally {
      shop.html = () => shopPage({ base, key: pk, agentId: f.agentId });
    }
  });

  it("applies the agent's widget settings: colour, position, greeting (not stored), a proactive message on chosen paths (stored once answered), session persistence", async () => {
    // The service stores the agent's own proactive text when the visitor answers it (the page's config is mocked below).
    const proactive = { message: 'Questions about our plans?', delay_seconds: 1, paths: ['/pricing*'] };
    assert.equal((await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, { proactive })).status, 200);
    const context = await browser.newContext({ locale: 'en-US' });
    await context.route('**/v1/widget_config', (route) => route.fulfill({
      status: 200,
      headers: { 'content-type': 'application/json', 'access-control-allow-origin': shop.origin },
      body: JSON.stringify({
        object: 'widget_config', agent_id: f.agentId, agent_name: 'Acme', theme_color: '#047857', position: 'bottom-left',
        greeting: 'Hi! Ask me anything about your order.', proactive: { message: 'Questions about our plans?', delay_seconds: 1, paths: ['/pricing*'] },
        identity: 'optional', persistence: 'session',
      }),
    }));
    const page = await context.newPage();
    await page.goto(`${shop.origin}/pricing/team`);
    const teaser = w(page, '.teaser');
    await teaser.waitFor();
    assert.equal(await teaser.textContent(), 'Questions about our plans?');
    const launcher = w(page, '.launcher');
    assert.ok((await launcher.boundingBox())!.x < 100, 'bottom-left');
    assert.equal(await launcher.evaluate((n: any) => getComputedStyle(n).backgroundColor), 'rgb(4, 120, 87)');
    await teaser.click();
    assert.equal(await w(page, 'h2').textContent(), 'Chat with Acme');
    assert.deepEqual((await bubbles(page)).map(([, text]) => text), ['Hi! Ask me anything about your order.', 'Questions about our plans?']);

    nextReply(['Open ', 'Settings ', 'and ', 'choose ', 'Security ', '[1]', '.'], []).release();
    await ask(page, 'How do I reset my password?');
    await pollUntil('the reply', async () => (await w(page, '.msg.agent:not(.streaming):not(.greeting):not(.proactive)').count()) === 1);
    const kept = await page.evaluate((key: string) => [sessionStorage.getItem(`converse:${key}`), localStorage.getItem(`converse:${key}`)], pk);
    assert.equal(kept[1], null, 'nothing in localStorage');
    const cnv = JSON.parse(kept[0]!).conversation as string;
    assert.deepEqual((await transcript(cnv)).map(([role]: string[]) => role), ['system', 'customer', 'agent'], 'the proactive message is stored before its answer; the greeting is not');
    assert.deepEqual((await bubbles(page)).map(([role, text]) => [role, text]).slice(0, 3), [
      ['agent', 'Hi! Ask me anything about your order.'], ['agent', 'Questions about our plans?'], ['customer', 'How do I reset my password?'],
    ], 'the proactive bubble is the stored turn, shown once');
    await page.screenshot({ path: path.join(ARTIFACTS, 'proactive-answered.png') });
    assert.equal((await f.call('POST', `/v1/agents/${f.agentId}/widget_settings`, { proactive: null })).status, 200);

    // Another path: no proactive message.
    const other = await context.newPage();
    await other.goto(`${shop.origin}/about`);
    await w(other, '.launcher').waitFor();
    await other.waitForTimeout(1500);
    assert.equal(await w(other, '.teaser').isVisible(), false);
    await context.close();
  });

  it('with identity required, asks the visitor to sign in until the page identifies them', async () => {
    const secret = await f.call('POST', `/v1/agents/${f.agentId}/identity_secrets`, {});
    const jwt = signJwt({ alg: 'HS256', typ: 'JWT', kid: secret.body.id }, { sub: 'cus_widget_2', exp: nowSeconds() + 600 }, secret.body.secret);
    const context = await browser.newContext({ locale: 'en-US' });
    await context.route('**/v1/widget_config', (route) => route.fulfill({
      status: 200,
      headers: { 'content-type': 'application/json', 'access-control-allow-origin': shop.origin },
      body: JSON.stringify({ object: 'widget_config', agent_id: f.agentId, agent_name: 'Acme', theme_color: '#2563eb', position: 'bottom-right', greeting: null, proactive: null, identity: 'required', persistence: 'local' }),
    }));
    const page = await context.newPage();
    await page.goto(`${shop.origin}/`);
    await w(page, '.launcher').click();
    assert.equal(await w(page, 'textarea').isDisabled(), true);
    assert.equal(await w(page, '.status').textContent(), 'Please sign in to chat with us.');
    await page.evaluate((token: string) => window.Converse.identify(token), jwt);
    assert.equal(await w(page, 'textarea').isDisabled(), false);
    assert.equal(await w(page, '.status').isVisible(), false);
    await context.close();
  });
});
