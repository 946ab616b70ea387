import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { publicBaseUrlWarning } from '../../src/domain/public-links';
import { HELP_CENTER, ask, openConversation, seedAgent } from '../support/agents';
import { buildTestConfig } from '../support/config';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

/**
 * Customer-facing links are served at PUBLIC_BASE_URL; unset, it is the API's loopback address, which a
 * customer's phone cannot open. Live mode then hands customers none of the service's own links (SMS
 * replies cite sources by their own urls, citation pages are not linked); `/readyz` and `npm start` warn
 * while live keys exist. Test mode keeps its local links.
 */
const ctx = useTestStack({ label: __filename });

describe('public links while PUBLIC_BASE_URL is unset (loopback)', () => {
  it('live SMS replies cite sources by their own urls (no short link stored); test mode keeps short links', async () => {
    const { stack } = ctx;
    assert.equal(stack.config.http.publicBaseUrlIsLoopback, true);
    for (const mode of ['live', 'test'] as const) {
      const f = await seedAgent(stack, {}, HELP_CENTER, mode);
      const conversationId = await openConversation(f, { customer: { phone: '+14155550100' } });
      const scope = { accountId: f.accountId, livemode: f.livemode };
      const conversation = (await stack.services.conversations.conversationRepo.getConversationById(stack.database.db, scope, conversationId))!;
      const body = await stack.services.replyChannels.shapeReply('sms', {
        accountId: f.accountId,
        conversation,
        runId: `run_public_links_${mode}`,
        text: 'Standard shipping takes 3 to 5 business days [1].',
        sources: [{ title: 'Shipping times', url: 'https://help.example.com/shipping' }] as never,
      });
      const stored = await stack.database.db.selectFrom('short_links').select('code').where('account_id', '=', f.accountId).execute();
      if (mode === 'live') {
        assert.match(body, /https:\/\/help\.example\.com\/shipping/);
        assert.doesNotMatch(body, /\/l\//);
        assert.deepEqual(stored, [], 'no short link is made');
      } else {
        assert.ok(body.includes(`${stack.config.http.publicBaseUrl}/l/`), body);
        assert.equal(stored.length, 1);
      }
    }
  });

  it('a live chat run over records links no citation page; a test-mode run does', async () => {
    // Records without a url of their own: a cited passage gets a citation page (`/c/…`) when links are served.
    const records = HELP_CENTER.map(({ title, content }) => ({ title, content })) as unknown as typeof HELP_CENTER;
    for (const mode of ['live', 'test'] as const) {
      const f = await seedAgent(ctx.stack, {}, records, mode);
      const { run } = await ask(f, await openConversation(f), 'How long does standard shipping take?');
      assert.equal(run.status, 'completed', JSON.stringify(run));
      const cited = run.retrieval.filter((r: { cited: boolean }) => r.cited);
      assert.ok(cited.length > 0, JSON.stringify(run.retrieval));
      if (mode === 'live') assert.deepEqual(cited.map((r: { url: string | null }) => r.url), cited.map(() => null));
      else for (const r of cited) assert.ok(r.url.startsWith(`${ctx.stack.config.http.publicBaseUrl}/c/`), r.url);
    }
  });

  it('/readyz stays ready and warns once a live key exists', async () => {
    const { stack } = ctx;
    const readyz = async () => (await apiClient(stack.baseUrl)('GET', '/readyz')).body;
    // Earlier tests of this file made live keys: revoke them to see the answer without.
    for (const key of await stack.database.db.selectFrom('api_keys').select(['id', 'account_id']).where('mode', '=', 'live').execute()) {
      await stack.services.accounts.revokeApiKey({ accountId: key.account_id, keyId: key.id });
    }
    assert.deepEqual((await readyz()).warnings, []);

    await stack.newAccount('Live', 'live');
    const ready = await readyz();
    assert.equal(ready.status, 'ok');
    assert.deepEqual(ready.warnings.map((w: { code: string }) => w.code), ['public_base_url_loopback']);
    assert.match(ready.warnings[0].message, /PUBLIC_BASE_URL/);

    // With a public address set there is nothing to warn about (the same check npm start logs at start).
    const publicConfig = buildTestConfig({ http: { ...stack.config.http, publicBaseUrl: 'https://converse.example', publicBaseUrlIsLoopback: false } });
    assert.equal(await publicBaseUrlWarning(publicConfig.http, async () => true), undefined);
    assert.equal(buildTestConfig().http.publicBaseUrlIsLoopback, true);
  });
});
