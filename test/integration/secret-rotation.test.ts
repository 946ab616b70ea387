import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Stripe from 'stripe';
import { verifySignatureHeader } from '../../src/domain/signature';
import { queryApiSource } from '../../src/knowledge/index/api-source.client';
import { apiClient } from '../support/http';
import { startReceiver } from '../support/receiver';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, worker: false });
const stripe = new Stripe('sk_test_unused');

describe('account signing secret rotation', () => {
  it('signs with the new and the old secret during the grace period, then with the new one alone', async () => {
    const { apiKey, accountId } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const before = (await call('GET', '/v1/account')).body;
    assert.equal(before.previous_signing_secret_expires_at, null);

    const rotated = await call('POST', '/v1/account/rotate_signing_secret', {});
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.signing_secret, before.signing_secret);
    const graceEnds = Date.parse(rotated.body.previous_signing_secret_expires_at);
    assert.ok(Math.abs(graceEnds - (Date.now() + 24 * 3600 * 1000)) < 60_000, 'default grace period is 24 h');

    const receiver = await startReceiver(() => ({ status: 200, body: { results: [] } }));
    try {
      const send = async () => {
        const secret = await ctx.stack.services.accounts.getSigningSecret({ accountId, livemode: false });
        await queryApiSource({ url: `${receiver.url}/search`, secret, knowledgeBaseId: 'kb_1', sourceId: 'src_1', query: 'q', topK: 1, timeoutMs: 2000, allowPrivate: true });
        const req = receiver.requests.at(-1)!;
        return { header: String(req.headers['service-signature']), body: req.rawBody.toString('utf8') };
      };
      const during = await send();
      assert.equal(during.header.match(/v1=/g)?.length, 2, during.header);
      for (const secret of [before.signing_secret, rotated.body.signing_secret]) {
        assert.ok(verifySignatureHeader(secret, during.body, during.header));
        assert.doesNotThrow(() => stripe.webhooks.constructEvent(during.body, during.header, secret, 300));
      }

      const ended = await call('POST', '/v1/account/rotate_signing_secret', { grace_period_seconds: 0 });
      assert.equal(ended.body.previous_signing_secret_expires_at, null);
      const after = await send();
      assert.equal(after.header.match(/v1=/g)?.length, 1);
      assert.ok(verifySignatureHeader(ended.body.signing_secret, after.body, after.header));
      assert.ok(!verifySignatureHeader(rotated.body.signing_secret, after.body, after.header));
    } finally {
      await receiver.close();
    }
  });

  it('refuses a grace period over 24 h', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const res = await call('POST', '/v1/account/rotate_signing_secret', { grace_period_seconds: 86_401 });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.param, 'grace_period_seconds');
  });
});
