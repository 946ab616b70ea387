import { widgetScript } from '../../src/widget/widget-script';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { seedAgent } from '../support/agents';
import { useConsoleBrowser } from '../support/console-browser';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const browser = useConsoleBrowser(() => ctx.stack.baseUrl);
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console-website');
mkdirSync(ARTIFACTS, { recursive: true });

describe("the console's Website chat page in a browser", () => {
  it('copies the install snippet, saves the appearance form, and opens the live preview with a key for its own origin', async () => {
    const f = await seedAgent(ctx.stack);
    const key = (await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: ['https://shop.example'], name: 'Shop' })).body.key as string;
    await f.call('POST', `/v1/agents/${f.agentId}/identity_secrets`, {});
    const page = await browser.signedIn(f.apiKey);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.stack.baseUrl });
    await page.goto(`${ctx.stack.baseUrl}/console/agents/${f.agentId}/website`);

    const snippet = `<script src="${ctx.stack.config.http.publicBaseUrl}/widget.js" data-key="${key}" integrity="${widgetScript().integrity}" crossorigin="anonymous" async></script>`;
    assert.equal(await page.locator('[data-snippet]').first().textContent(), snippet);
    await page.locator('[data-install] [data-copy]').first().click();
    assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>), snippet, 'the Copy button copies the tag as written');
    await page.locator('.jwt-examples summary').click();
    assert.match((await page.locator('[data-jwt-example="python"]').textContent()) ?? '', /import base64, hashlib, hmac, json, os, time/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'website-install.png'), fullPage: true });

    const form = page.locator('[data-settings-form]');
    await form.locator('input[name=theme_color]').fill('#0f766e');
    await form.locator('select[name=position]').selectOption('bottom-left');
    await form.locator('textarea[name=greeting]').fill('Hi! Ask me anything about your order.');
    await form.locator('input[name=proactive]').check();
    await form.locator('input[name=proactive_message]').fill('Questions about our plans?');
    await form.locator('input[name=proactive_delay_seconds]').fill('10');
    await form.locator('textarea[name=proactive_paths]').fill('/pricing');
    await form.locator('button', { hasText: 'Save' }).click();
    await page.waitForLoadState();
    const saved = (await f.call('GET', `/v1/agents/${f.agentId}/widget_settings`)).body;
    assert.equal(saved.theme_color, '#0f766e');
    assert.equal(saved.position, 'bottom-left');
    assert.deepEqual(saved.proactive, { message: 'Questions about our plans?', delay_seconds: 10, paths: ['/pricing'] });
    await page.screenshot({ path: path.join(ARTIFACTS, 'website-settings.png'), fullPage: true });

    await page.locator('button', { hasText: 'Open the live preview' }).click();
    await page.waitForURL(/\/website\/preview$/);
    const previewKey = (await f.call('GET', `/v1/publishable_keys?agent_id=${f.agentId}`)).body.data.find((k: any) => k.name === 'Console preview');
    assert.deepEqual(previewKey.allowed_origins, [new URL(page.url()).origin], "the preview key allows the page's own origin");
    assert.equal(await page.locator(`script[src="/widget.js"][data-key="${previewKey.key}"]`).count(), 1);
    // The page's own same-origin GET (no Origin header, Sec-Fetch-Site set by the browser) reads the widget's config.
    const config = await page.evaluate(async (pk) => {
      const res = await fetch('/v1/widget_config', { headers: { authorization: `Bearer ${pk}` } });
      return { status: res.status, body: (await res.json()) as any };
    }, previewKey.key);
    assert.equal(config.status, 200, JSON.stringify(config.body));
    assert.equal(config.body.greeting, 'Hi! Ask me anything about your order.');
    await page.screenshot({ path: path.join(ARTIFACTS, 'website-preview.png'), fullPage: true });
  });
});
