import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifySignatureHeader } from '../../src/domain/signature';
import { webhookDeliveryWorkflowId } from '../../workflows/shared/webhooks.contracts';
import { apiClient, type ApiClient } from '../support/http';
import { startReceiver } from '../support/receiver';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, config: { webhooks: { timeoutMs: 300 } } });

async function setup(respond: Parameters<typeof startReceiver>[0]) {
  const { accountId, apiKey } = await ctx.stack.newAccount();
  const call: ApiClient = apiClient(ctx.stack.baseUrl, apiKey);
  const receiver = await startReceiver(respond);
  const endpoint = (await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/hook`, events: ['message.updated'] })).body;
  return { accountId, call, receiver, endpoint };
}

async function deliveryOf(call: ApiClient, eventId: string) {
  const res = await call('GET', `/v1/events/${eventId}/deliveries`);
  assert.equal(res.status, 200);
  assert.equal(res.body.data.length, 1);
  return res.body.data[0];
}

const minutes = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 60_000;

/** The result of a delivery's retry workflow, which the dispatcher starts once the first attempt failed. */
async function retryResult(deliveryId: string) {
  const handle = ctx.env.client.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId));
  for (let i = 0; ; i++) {
    try {
      await handle.describe();
      break;
    } catch (err) {
      if (i > 200) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return handle.result();
}

describe('webhook delivery workflow (time-skipping)', () => {
  it('delivers on the 6th attempt to a receiver that fails 5 times, on the backoff schedule', async () => {
    const { accountId, call, receiver, endpoint } = await setup((_r, i) => ({ status: i < 5 ? 503 : 200 }));
    const event = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_1', object: 'message', status: 'delivered' } });
    const { id: deliveryId } = await deliveryOf(call, event.id);

    const result = await retryResult(deliveryId);
    assert.deepEqual(result, { status: 'delivered', attempts: 6 });

    const delivery = await deliveryOf(call, event.id);
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempt_count, 6);
    assert.deepEqual(delivery.attempts.map((a: any) => a.status_code), [503, 503, 503, 503, 503, 200]);
    assert.deepEqual(delivery.attempts.map((a: any) => a.outcome), ['retryable', 'retryable', 'retryable', 'retryable', 'retryable', 'delivered']);
    // Attempt 1 is the dispatcher's (real clock); the retries run on the test server's skipped clock.
    const t = delivery.attempts.slice(1).map((a: any) => a.started_at);
    const gaps = t.slice(1).map((x: string, i: number) => Math.round(minutes(t[i], x)));
    assert.deepEqual(gaps, [5, 30, 120, 300], 'gaps between retries in minutes');

    assert.equal(receiver.requests.length, 6);
    for (const r of receiver.requests) {
      assert.equal(r.headers['webhook-id'], deliveryId, 'same Webhook-Id on every attempt');
      assert.ok(verifySignatureHeader(endpoint.signing_secret, r.rawBody, String(r.headers['service-signature'])));
      assert.equal(JSON.parse(r.rawBody.toString()).id, event.id);
    }
    await receiver.close();
  });

  it('marks the delivery failed after about 3 days when the receiver never answers', async () => {
    const { accountId, call, receiver } = await setup(() => new Promise(() => undefined));
    const event = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_2' } });
    const { id: deliveryId } = await deliveryOf(call, event.id);

    const result = await retryResult(deliveryId);
    assert.deepEqual(result, { status: 'failed', attempts: 10 });
    const delivery = await deliveryOf(call, event.id);
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempts.length, 10);
    assert.ok(delivery.attempts.every((a: any) => a.status_code === null && /^timeout/.test(a.error)));
    const hours = minutes(delivery.attempts[1].started_at, delivery.attempts[9].started_at) / 60;
    assert.ok(hours > 70 && hours < 72, `second to last attempt: ${hours} h (71.6 h from the first)`);
    await receiver.close();
  });

  for (const how of ['disabled', 'deleted'] as const) {
    it(`stops retrying once the endpoint is ${how}`, async () => {
      const { accountId, call, receiver, endpoint } = await setup(() => ({ status: 500 }));
      const event = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_3' } });
      await receiver.waitFor(1);
      const { id: deliveryId } = await deliveryOf(call, event.id);
      if (how === 'disabled') {
        const disabled = await call('POST', `/v1/webhook_endpoints/${endpoint.id}`, { enabled: false });
        assert.equal(disabled.body.enabled, false);
      } else {
        const deleted = await call('DELETE', `/v1/webhook_endpoints/${endpoint.id}`);
        assert.deepEqual(deleted.body, { id: endpoint.id, object: 'webhook_endpoint', deleted: true });
        assert.equal((await call('GET', `/v1/webhook_endpoints/${endpoint.id}`)).status, 404);
      }

      const result = await retryResult(deliveryId);
      assert.equal(result.status, 'cancelled');
      assert.equal(receiver.requests.length, 1);
      assert.equal((await deliveryOf(call, event.id)).status, 'cancelled');

      const later = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_4' } });
      const deliveries = await call('GET', `/v1/events/${later.id}/deliveries`);
      assert.equal(deliveries.body.data.length, 0, `a ${how} endpoint gets no new deliveries`);
      await receiver.close();
    });
  }

  it('delivers only to endpoints subscribed to the type or to *', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const receiver = await startReceiver();
    const all = (await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/all`, events: ['*'] })).body;
    const msgs = (await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/msgs`, events: ['message.updated', 'message.received'] })).body;
    await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/runs`, events: ['run.completed'] });

    const event = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.received', data: { id: 'msg_5' } });
    const deliveries = (await call('GET', `/v1/events/${event.id}/deliveries`)).body.data;
    assert.deepEqual(deliveries.map((d: any) => d.endpoint_id).sort(), [all.id, msgs.id].sort());
    await receiver.waitFor(2);
    assert.deepEqual(receiver.requests.map((r) => r.path).sort(), ['/all', '/msgs']);

    const redelivered = await call('POST', `/v1/events/${event.id}/redeliver`, { endpoint_id: msgs.id });
    assert.equal(redelivered.status, 200);
    await receiver.waitFor(3);
    assert.equal(receiver.requests.filter((r) => r.path === '/msgs').length, 2);
    await receiver.close();
  });
});
