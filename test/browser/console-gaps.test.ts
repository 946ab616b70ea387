import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { seedAgent } from '../support/agents';
import { useConsoleBrowser } from '../support/console-browser';
import { seedGapQuestion } from '../support/knowledge-gaps';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console-gaps');
mkdirSync(ARTIFACTS, { recursive: true });

const consoleBrowser = useConsoleBrowser(() => ctx.stack.baseUrl);
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

const GIFT_REPLY = 'Yes, we offer gift wrapping for 3 euros per item: tick Gift wrapping at checkout.';

describe('console: knowledge gaps', () => {
  test('the agent page links to its gaps; a gap opens a pre-filled answer, and once saved its questions are answered', async () => {
    const f = await seedAgent(ctx.stack);
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    const base = { accountId: f.accountId, livemode: false, agentId: f.agentId };
    const db = ctx.stack.database.db;
    await seedGapQuestion(db, { ...base, text: 'Do you offer gift wrapping?', at: hoursAgo(50), bestScore: 0.31 });
    await seedGapQuestion(db, { ...base, text: 'Is gift wrapping available for my order?', at: hoursAgo(30), channel: 'sms', humanReply: GIFT_REPLY });
    await seedGapQuestion(db, { ...base, text: 'Can you add gift wrapping?', at: hoursAgo(20), reason: 'low_confidence' });
    await seedGapQuestion(db, { ...base, text: 'Can I pay with Bitcoin?', at: hoursAgo(10) });

    const page = await consoleBrowser.signedIn(f.apiKey);
    await page.goto(`${ctx.stack.baseUrl}/console/agents/${f.agentId}`);
    await page.click('a:text("Knowledge gaps")');
    await page.waitForURL(new RegExp(`/agents/${f.agentId}/gaps$`));
    const cards = page.locator('section.gap');
    assert.equal(await cards.count(), 2);
    const first = await cards.nth(0).textContent() ?? '';
    assert.match(first, /3 conversations/, 'the gift-wrapping group first: most conversations');
    assert.match(first, /Do you offer gift wrapping\?/);
    assert.match(first, /Is gift wrapping available for my order\?/);
    assert.match(first, /A teammate replied:\s*Yes, we offer gift wrapping/);
    assert.match(first, /sms 1/);
    assert.match(await cards.nth(1).textContent() ?? '', /1 conversation\b.*Can I pay with Bitcoin/s);
    await shot(page, 'gaps');

    await cards.nth(0).locator('a:text("Write an answer")').click();
    await page.waitForURL(/\/gaps\/gap_[0-9a-f]+\/answer/);
    const title = await page.inputValue('input[name=title]');
    assert.match(title, /gift wrapping/);
    assert.equal(await page.inputValue('textarea[name=content]'), GIFT_REPLY, "pre-filled with the teammate's reply");
    await page.fill('input[name=title]', 'Gift wrapping');
    await shot(page, 'gap-answer-form');
    await page.click('button:text("Save and re-ask")');
    await page.waitForSelector('[data-gap-answered]', { timeout: 120_000 });
    const notice = page.locator('[data-gap-answered]');
    assert.equal(await notice.getAttribute('data-gap-asked'), '3');
    assert.equal(await notice.getAttribute('data-gap-answered'), '3', await page.textContent('table.list') ?? '');
    await shot(page, 'gap-answered');

    // The record is in the agent's record source, like any other.
    const records = await f.call('GET', `/v1/knowledge_bases/${f.knowledgeBaseId}/sources/${(await f.call('GET', `/v1/knowledge_bases/${f.knowledgeBaseId}/sources`)).body.data[0].id}/records?limit=100`);
    assert.ok(records.body.data.some((r: { title: string; content: string }) => r.title === 'Gift wrapping' && r.content === GIFT_REPLY));
    // The re-asked questions ran in console test chats: not counted as new gaps, not in the inbox.
    await page.goto(`${ctx.stack.baseUrl}/console/agents/${f.agentId}/gaps`);
    assert.equal(await page.locator('section.gap').count(), 2);
  });
});
