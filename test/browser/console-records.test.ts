import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { useConsoleBrowser } from '../support/console-browser';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';
import { waitForSource } from '../integration/knowledge-helpers';

const ctx = useTestStack({ label: __filename });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console-records');
mkdirSync(ARTIFACTS, { recursive: true });

const consoleBrowser = useConsoleBrowser(() => ctx.stack.baseUrl);

const records = [
  { title: 'Refund policy', content: 'Refunds are issued within 14 days of purchase.\nKeep your receipt.', url: 'https://help.example.com/refunds' },
  { title: 'Shipping times', content: 'Standard shipping takes 3 to 5 business days.' },
  { title: 'Password reset', content: 'Open Settings, choose Security and click Reset password.' },
];

const signedIn = (apiKey: string) => consoleBrowser.signedIn(apiKey, { acceptDialogs: true });

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
const rowTitles = async (page: Page) => page.$$eval('table.records tbody tr td:first-child a', (as) => as.map((a) => (a as unknown as { textContent: string }).textContent.trim()));

describe('console: knowledge records', () => {
  test('a record source lists its records; one is edited, one added, one deleted through the forms, and the index follows; a document source shows its file name', async () => {
    const { apiKey } = await ctx.stack.newAccount('Records Co');
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const kb = (await call('POST', '/v1/knowledge_bases', { name: 'Help centre' })).body.id as string;
    const src = (await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'record', records, refresh: 'manual' })).body.id as string;
    await waitForSource(call, kb, src, 'ready');
    const form = new FormData();
    form.append('file', new Blob(['# Returns\n\nItems can be returned within 30 days.'], { type: 'text/markdown' }), 'returns-guide.md');
    const file = (await (await fetch(`${ctx.stack.baseUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form })).json()) as { id: string };
    const doc = (await call('POST', `/v1/knowledge_bases/${kb}/sources`, { type: 'document', file_id: file.id, refresh: 'manual' })).body.id as string;

    const page = await signedIn(apiKey);
    await page.goto(`${ctx.stack.baseUrl}/console/knowledge/${kb}`);
    assert.match(await page.textContent(`tr[data-source-id="${doc}"]`) ?? '', /returns-guide\.md/, 'the base page names the uploaded file');
    await page.click(`tr[data-source-id="${src}"] td:first-child a`);
    await page.waitForURL(new RegExp(`/sources/${src}$`));
    assert.deepEqual(await rowTitles(page), ['Refund policy', 'Shipping times', 'Password reset']);
    const refundRow = await page.textContent('table.records tbody tr:first-child') ?? '';
    assert.match(refundRow, /Refunds are issued within 14 days of purchase\./);
    assert.doesNotMatch(refundRow, /Keep your receipt/, 'only the first line');
    assert.match(refundRow, /help\.example\.com\/refunds/);
    await shot(page, 'record-source');

    // Edit one record.
    await page.click('table.records tbody tr:first-child >> text=Edit');
    assert.equal(await page.inputValue('input[name=title]'), 'Refund policy');
    await shot(page, 'record-edit');
    await page.fill('textarea[name=content]', 'Refunds are issued within 30 days of purchase, as store credit.');
    await page.click('button:text("Save record")');
    await page.waitForURL(/\?saved=1$/);
    assert.match(await page.textContent('table.records tbody tr:first-child') ?? '', /30 days of purchase, as store credit/);
    const q = await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'refund store credit' });
    assert.equal(q.body.results[0].title, 'Refund policy');
    assert.match(q.body.results[0].snippet, /30 days/);

    // A bad edit keeps what was typed and changes nothing.
    await page.click('table.records tbody tr:nth-child(2) >> text=Edit');
    await page.fill('input[name=title]', '');
    await page.fill('textarea[name=content]', 'Typed but not saved.');
    await page.$eval('form.card', (f) => (f as unknown as { noValidate: boolean }).noValidate = true);
    await page.click('button:text("Save record")');
    await page.waitForSelector('.error-banner');
    assert.match(await page.textContent('.error-banner') ?? '', /title/);
    assert.equal(await page.inputValue('textarea[name=content]'), 'Typed but not saved.');
    await shot(page, 'record-edit-error');
    const rec2 = (await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}/records`)).body.data[1];
    assert.equal(rec2.title, 'Shipping times');

    // Add one.
    await page.goto(`${ctx.stack.baseUrl}/console/knowledge/${kb}/sources/${src}`);
    await page.fill('#add-record input[name=title]', 'Gift cards');
    await page.fill('#add-record textarea[name=content]', 'Gift cards never expire.');
    await page.fill('#add-record input[name=metadata]', 'topic=billing');
    await page.click('button:text("Add record")');
    await page.waitForURL(/\?saved=1$/);
    assert.deepEqual(await rowTitles(page), ['Refund policy', 'Shipping times', 'Password reset', 'Gift cards']);
    assert.equal((await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'do gift cards expire' })).body.results[0].title, 'Gift cards');

    // Delete one.
    await page.click('table.records tbody tr:nth-child(3) >> button:text("Delete")');
    await page.waitForURL(/\?deleted=1$/);
    assert.deepEqual(await rowTitles(page), ['Refund policy', 'Shipping times', 'Gift cards']);
    assert.deepEqual((await call('POST', `/v1/knowledge_bases/${kb}/query`, { query: 'reset password security settings' })).body.results.filter((r: { title: string }) => r.title === 'Password reset'), []);
    await shot(page, 'record-source-after');

    // A form posted without the CSRF token is refused, and changes nothing.
    const forged = await page.evaluate(`fetch(location.pathname + '/records', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'title=x&content=y' }).then((r) => r.status)`);
    assert.equal(forged, 403);
    assert.equal((await call('GET', `/v1/knowledge_bases/${kb}/sources/${src}`)).body.record_count, 3);

    // The document source's page names its file.
    await page.goto(`${ctx.stack.baseUrl}/console/knowledge/${kb}/sources/${doc}`);
    assert.equal(await page.textContent('[data-filename]'), 'returns-guide.md');
    await shot(page, 'document-source');

    // Another account's source is not found.
    const stranger = await signedIn((await ctx.stack.newAccount('Stranger Co')).apiKey);
    const res = await stranger.goto(`${ctx.stack.baseUrl}/console/knowledge/${kb}/sources/${src}`);
    assert.equal(res?.status(), 404);
  });
});
