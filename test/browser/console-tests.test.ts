import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ask, openConversation, seedAgent } from '../support/agents';
import { useConsoleBrowser } from '../support/console-browser';
import { useTestStack } from '../support/stack';

const dataDir = mkdtempSync(path.join(tmpdir(), 'console-tests-'));
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { dataDir } });
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/console');
mkdirSync(ARTIFACTS, { recursive: true });

const { signedIn } = useConsoleBrowser(() => ctx.stack.baseUrl);

describe('console: an agent\'s tests', () => {
  test('turns inbox conversations into test cases, adds one from YAML, runs them against the draft and shows the results', async () => {
    const f = await seedAgent(ctx.stack);
    // A conversation the agent handed off, and one a person answered after the agent.
    const parrot = await openConversation(f, { customer: { name: 'Polly' } });
    await ask(f, parrot, 'Can I bring my parrot to the annual shareholder meeting in Lisbon?');
    const refund = await openConversation(f, { customer: { name: 'Rita' } });
    await ask(f, refund, 'What is your refund policy?');
    const human = await f.call('POST', `/v1/conversations/${refund}/messages`, { role: 'human', content: 'Refunds are issued within 14 days of purchase.' });
    assert.equal(human.status, 201);

    const page = await signedIn(f.apiKey);
    await page.goto(`${ctx.stack.baseUrl}/console/inbox/${parrot}`);
    const parrotTurn = page.locator('li.turn-customer [data-add-to-tests]').first();
    await parrotTurn.locator('select[name=expect]').selectOption('handoff');
    await parrotTurn.locator('button:has-text("Add to tests")').click();
    await page.waitForURL(/\/tests\?edit=tcase_/);
    assert.match(await page.locator('textarea[name=yaml]').first().inputValue(), /handoff: \{\}/);

    await page.goto(`${ctx.stack.baseUrl}/console/inbox/${refund}`);
    await page.locator('li.turn-customer [data-add-to-tests] button:has-text("Add to tests")').first().click();
    await page.waitForURL(/\/tests\?edit=tcase_/);
    assert.match(await page.locator('textarea[name=yaml]').first().inputValue(), /contains_one_of:\s*\n?\s*- 14 days/);

    // A case typed as YAML; a broken one is refused with its message and nothing is added.
    await page.fill('[data-add-case] textarea[name=yaml]', 'name: Broken\nturns:\n  - customer: hi\n    expect: { reply: { max_sms_segments: 0 } }\n');
    await page.click('[data-add-case] button');
    assert.match(await page.locator('[data-test-error]').innerText(), /max_sms_segments/);
    await page.fill('[data-add-case] textarea[name=yaml]', 'name: Shipping time\nturns:\n  - customer: How long does standard shipping take?\n    expect: { reply: { cites: { title: Shipping }, contains_one_of: [3 to 5 business days] } }\n');
    await page.click('[data-add-case] button');
    await page.waitForURL(/\/tests$/);
    assert.equal(await page.locator('[data-test-cases] tbody tr').count(), 3);

    await page.click('[data-run-evaluation]');
    await page.waitForURL(/\/evaluations\/eval_/);
    await page.waitForSelector('[data-evaluation-summary]:has-text("3 of 3 passed")', { timeout: 60_000 });
    assert.equal(await page.locator('[data-evaluation-results] tbody tr').count(), 3);
    const row = page.locator('[data-evaluation-results] tr[data-result="Shipping time"]');
    assert.match(await row.innerText(), /passed/);
    assert.match(await row.locator('a.mono').first().getAttribute('href') ?? '', /\/workflows\/run_/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'evaluation.png'), fullPage: true });

    // The evaluation's hidden conversations are not in the inbox.
    await page.goto(`${ctx.stack.baseUrl}/console/inbox`);
    assert.equal(await page.locator('table.inbox tbody tr').count(), 2);
  });
});
