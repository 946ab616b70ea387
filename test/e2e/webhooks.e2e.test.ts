import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import type { Runtime } from '../../src/app/runtime';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { startDevRuntime, type DevRuntime } from '../support/runtime';

const stripe = new Stripe('sk_test_unused');
let dev: DevRuntime;
let runtime: Runtime;
let baseUrl: string;

before(async () => {
  dev = await startDevRuntime({ label: __filename, api: true });
  runtime = dev.runtime;
  baseUrl = dev.baseUrl!;
});

after(async () => {
  await dev?.close();
});

describe('webhooks end to end (Temporal dev server, API, worker, local receiver)', () => {
  it('delivers a signed test event that Stripe\'s verifier accepts', async (t) => {
    const account = await runtime.services.accounts.createAccount({ name: 'e2e' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const call = apiClient(baseUrl, secret);
    const receiver = await startReceiver();
    t.after(() => receiver.close());

    const ready = await call('GET', '/readyz');
    assert.deepEqual(ready.body, { status: 'ok', checks: { postgres: 'ok', temporal: 'ok' }, warnings: [] });

    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/webhooks`, events: ['message.updated'] });
    assert.equal(endpoint.status, 201);
    assert.match(endpoint.body.signing_secret, /^whsec_/);

    const sent = await call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/test`);
    assert.equal(sent.status, 200);
    assert.equal(sent.body.type, 'webhook_endpoint.test');

    await receiver.waitFor(1);
    const [req] = receiver.requests;
    const event = stripe.webhooks.constructEvent(req!.rawBody, String(req!.headers['service-signature']), endpoint.body.signing_secret, 300) as any;
    assert.equal(event.id, sent.body.id);
    assert.equal(event.object, 'event');
    assert.equal(event.type, 'webhook_endpoint.test');
    assert.equal(event.data.id, endpoint.body.id);

    const stored = await call('GET', `/v1/events/${sent.body.id}`);
    assert.deepEqual(stored.body, JSON.parse(req!.rawBody.toString()), 'the API shows the event exactly as delivered');

    let deliveries: Awaited<ReturnType<typeof call>> | undefined;
    await pollUntil('the delivery to be delivered', async () => {
      deliveries = await call('GET', `/v1/events/${sent.body.id}/deliveries`);
      return deliveries.body.data[0]?.status === 'delivered';
    }, { intervalMs: 100, timeoutMs: 5000, detail: () => JSON.stringify(deliveries?.body.data[0]) });
    assert.equal(deliveries!.body.data[0].status, 'delivered');
    assert.equal(deliveries!.body.data[0].attempts[0].status_code, 200);
  });
});
