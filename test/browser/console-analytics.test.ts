import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { useConsoleBrowser } from '../support/console-browser';
import { useTestStack } from '../support/stack';
import { seedTwoWeeks } from '../support/analytics-seed';
import { HOUR_MS } from '../../src/analytics/conversation-facts';

const ctx = useTestStack({ label: __filename, worker: false });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console-analytics');
mkdirSync(ARTIFACTS, { recursive: true });
const consoleBrowser = useConsoleBrowser(() => ctx.stack.baseUrl);

describe('console: analytics', () => {
  test('the home page shows the account; the agents list its 7 days; the Analytics tab draws each chart with its formula, its table and its CSV', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Analytics Co');
    const agent = await ctx.stack.services.agents.createAgent({ accountId, livemode: false, config: { name: 'Shop support', channels: ['chat', 'sms'] } });
    await ctx.stack.services.agents.publishAgent({ accountId, livemode: false, agentId: agent.id });
    await seedTwoWeeks(ctx.stack.database.db, { accountId, livemode: false, agentId: agent.id }, new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS));
    await ctx.stack.services.analyticsRollup.rollUpDue();

    const page = await consoleBrowser.signedIn(apiKey);
    // Signing in lands on the home page.
    assert.match(new URL(page.url()).pathname, /^\/console\/?$/);
    assert.match(await page.textContent('h1') ?? '', /Home/);
    assert.ok(await page.$('#chart-rates svg.chart'), 'the home page charts the account');
    await page.screenshot({ path: path.join(ARTIFACTS, 'home.png'), fullPage: true });

    await page.goto(`${ctx.stack.baseUrl}/console/agents`);
    const row = await page.textContent(`tr:has(a[href="/console/agents/${agent.id}"])`);
    assert.match(row ?? '', /\d+ %/, 'the agents list shows the resolution of the last 7 days');

    await page.goto(`${ctx.stack.baseUrl}/console/agents/${agent.id}`);
    await page.click('a.button:text("Analytics")');
    await page.waitForURL(new RegExp(`/console/agents/${agent.id}/analytics$`));
    for (const id of ['rates', 'volume', 'handoffs', 'response', 'tools', 'confidence']) {
      assert.ok(await page.$(`#chart-${id} svg.chart`), `chart ${id}`);
      assert.ok((await page.textContent(`#chart-${id} .formula`))!.length > 20, `chart ${id} states its formula`);
    }
    // Not colour alone: the rate lines are told apart by their dash patterns and named at their ends.
    const dashes = await page.$$eval('#chart-rates svg.chart path[stroke-dasharray]:not(.partial-line)', (ps) => ps.map((p) => p.getAttribute('stroke-dasharray')));
    assert.equal(new Set(dashes).size, 3, JSON.stringify(dashes));
    assert.match(await page.textContent('#chart-handoffs svg.chart') ?? '', /no supporting source/);

    await page.click('#chart-handoffs summary');
    const tableText = await page.textContent('#chart-handoffs table.numbers');
    assert.match(tableText ?? '', /low confidence/);
    const csvHref = await page.getAttribute('#chart-handoffs .chart-links a', 'href');
    const csv = await page.evaluate(async (href) => (await fetch(href!)).text(), csvHref);
    assert.match(csv, /^Reason,Conversations\r\n/);
    assert.match(csv, /customer requested,\d+/);
    const api = await (await fetch(`${ctx.stack.baseUrl}/v1/analytics/agents/${agent.id}?from=${encodeURIComponent(new Date(Date.now() - 30 * 86_400_000).toISOString())}`, { headers: { authorization: `Bearer ${apiKey}` } })).json() as { totals: { handoffs_by_reason: Record<string, number> } };
    assert.equal(Number(/customer requested,(\d+)/.exec(csv)![1]), api.totals.handoffs_by_reason.customer_requested, 'the CSV holds the API\'s numbers');

    // The period starts at the first day with data (14 days of demo traffic), not 30 days back; today is partial.
    assert.match(await page.textContent('select[name=days] option[selected]') ?? '', /since the first day with data \(15 days\)/);
    // Today and yesterday (within the 24 h resolution window) are not final: one hatched band, labelled.
    assert.equal(await page.$$eval('#chart-rates svg.chart rect.partial', (r) => r.length), 1, 'one band over the periods not final yet');
    assert.match(await page.textContent('#chart-rates svg.chart') ?? '', /not final yet/);
    assert.equal(await page.$$eval('#chart-rates table.numbers tr.partial', (r) => r.length), 2, 'today and yesterday');
    assert.match(await page.textContent('#chart-rates table.numbers tr.partial') ?? '', /\(partial\)/);
    const ratesCsv = await page.evaluate(async (href) => (await fetch(href!)).text(), await page.getAttribute('#chart-rates .chart-links a', 'href'));
    assert.match(ratesCsv, /^Period,Resolution rate %,Handoff rate %,Automation rate %,Partial\r\n/);
    assert.match(ratesCsv, /,yes\r\n$/, 'the last period (today) is marked partial');
    assert.equal(ratesCsv.trim().split('\r\n').length, 1 + 15, 'a row per day from the first day with data to today');

    await page.screenshot({ path: path.join(ARTIFACTS, 'agent-analytics.png'), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 800 });
    // The sticky top bar would cover the chart in an element screenshot.
    await page.addStyleTag({ content: 'header.top{position:static}' });
    await page.goto(`${ctx.stack.baseUrl}/console/agents/${agent.id}/analytics`);
    await page.addStyleTag({ content: 'header.top{position:static}' });
    await (await page.$('#chart-rates'))!.screenshot({ path: path.join(ARTIFACTS, 'chart-rates.png') });
    if (process.env.UPDATE_README_IMAGES) copyFileSync(path.join(ARTIFACTS, 'chart-rates.png'), path.resolve(__dirname, '../../docs/images/analytics.png'));
  });
});
