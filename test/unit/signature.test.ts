import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Stripe from 'stripe';
import { signatureHeader, verifySignatureHeader } from '../../src/domain/signature';

const stripe = new Stripe('sk_test_unused');
const secret = 'whsec_test_secret_value';
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'message.updated', created_at: '2026-11-21T00:00:00Z', data: { id: 'msg_1', status: 'delivered' } });

describe('Service-Signature', () => {
  it('is accepted by stripe.webhooks.constructEvent with the exact body and header we send', () => {
    const header = signatureHeader(secret, body);
    const event = stripe.webhooks.constructEvent(body, header, secret, 300) as unknown as { id: string };
    assert.equal(event.id, 'evt_1');
    assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('fails when a single byte of the body changes', () => {
    const header = signatureHeader(secret, body);
    const tampered = body.replace('delivered', 'delivereD');
    assert.throws(() => stripe.webhooks.constructEvent(tampered, header, secret, 300), /signature/i);
    assert.equal(verifySignatureHeader(secret, tampered, header), false);
  });

  it('fails for a timestamp 301 s old and passes at 299 s', () => {
    const now = Math.floor(Date.now() / 1000);
    const old = signatureHeader(secret, body, now - 301);
    assert.throws(() => stripe.webhooks.constructEvent(body, old, secret, 300), /tolerance/i);
    assert.equal(verifySignatureHeader(secret, body, old, { nowSeconds: now }), false);
    const recent = signatureHeader(secret, body, now - 299);
    assert.equal(verifySignatureHeader(secret, body, recent, { nowSeconds: now }), true);
  });

  it('fails with another secret', () => {
    const header = signatureHeader('whsec_other', body);
    assert.throws(() => stripe.webhooks.constructEvent(body, header, secret, 300));
    assert.equal(verifySignatureHeader(secret, body, header), false);
  });
});
