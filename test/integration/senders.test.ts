import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiClient } from '../support/http';
import { FakeSmsCarrier } from '../support/sms-messages-fake-carrier';
import { useTestStack } from '../support/stack';

const carrier = new FakeSmsCarrier();
const ctx = useTestStack({ label: __filename, smsCarriers: carrier });

let seq = 0;
const freshNumber = () => `+1415555${String(4000 + ++seq)}`;

async function client() {
  const account = await ctx.stack.newAccount();
  return { ...account, call: apiClient(ctx.stack.baseUrl, account.apiKey) };
}

const inboundOf = (accountId: string) =>
  ctx.stack.database.db.selectFrom('messages').selectAll().where('account_id', '=', accountId).where('direction', '=', 'inbound').execute();

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('senders belong to their account', () => {
  it('refuses sending from a sender ID or short code registered to another account, or to nobody', async () => {
    const a = await client();
    const b = await client();
    await ctx.stack.services.senders.registerSender({ accountId: a.accountId, livemode: false, sender: 'Brandco' });
    await ctx.stack.services.senders.registerSender({ accountId: a.accountId, livemode: false, sender: '55501' });
    for (const from of ['Brandco', 'BRANDCO', '55501', 'Nobodys', '77777']) {
      const res = await b.call('POST', '/v1/messages', { to: freshNumber(), from, body: 'phish' });
      assert.equal(res.status, 403, `${from}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'sender_not_registered');
      assert.equal(res.body.error.param, 'from');
    }
    for (const from of ['Brandco', 'brandco', '55501']) {
      assert.equal((await a.call('POST', '/v1/messages', { to: freshNumber(), from, body: 'hello' })).status, 201, from);
    }
    const list = await a.call('GET', '/v1/senders');
    assert.deepEqual(list.body.data.map((s: any) => [s.object, s.sender, s.kind]).sort(), [['sender', '55501', 'short_code'], ['sender', 'Brandco', 'alphanumeric']]);
    assert.deepEqual((await b.call('GET', '/v1/senders')).body.data, []);
    assert.equal((await b.call('GET', `/v1/senders/${list.body.data[0].id}`)).status, 404);
  });

  it('registers a sender to one account only, never the platform verification sender', async () => {
    const a = await client();
    const b = await client();
    await ctx.stack.services.senders.registerSender({ accountId: a.accountId, livemode: false, sender: 'Onlyone' });
    await assert.rejects(ctx.stack.services.senders.registerSender({ accountId: b.accountId, livemode: false, sender: 'ONLYONE' }), (e: any) => e.code === 'resource_conflict');
    await assert.rejects(ctx.stack.services.senders.registerSender({ accountId: b.accountId, livemode: false, sender: ctx.stack.config.verify.from }), (e: any) => e.code === 'resource_conflict');
    await assert.rejects(ctx.stack.services.senders.registerSender({ accountId: b.accountId, livemode: false, sender: '+14155550100' }), (e: any) => e.code === 'parameter_invalid');
  });

  it('delivers replies and STOP to a short code to its owner only, never to an account that wrote from it', async () => {
    const owner = await client();
    const other = await client();
    await ctx.stack.services.senders.registerSender({ accountId: owner.accountId, livemode: false, sender: '55502' });
    const customer = freshNumber();
    // The other account tries to send from the short code (refused), so it never "wrote from it".
    assert.equal((await other.call('POST', '/v1/messages', { to: customer, from: '55502', body: 'reply to me' })).status, 403);
    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: '55502', body: 'my card number is 4242', receivedAt: new Date(), carrierMessageId: 'sc-reply-1', sandbox: true });
    await until('the reply to reach the owner', async () => (await inboundOf(owner.accountId)).length === 1 || undefined);
    assert.equal((await inboundOf(other.accountId)).length, 0);
  });

  it('applies STOP to the platform verification sender for every account that used it, storing the text for none', async () => {
    const a = await client();
    const b = await client();
    const customer = freshNumber();
    for (const c of [a, b]) assert.equal((await c.call('POST', '/v1/verifications', { to: customer, channel: 'sms' })).status, 201);
    await until('both codes sent', async () => (carrier.submitsTo(customer).length >= 2 ? true : undefined));
    const platform = ctx.stack.config.verify.from;
    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: platform, body: 'STOP', receivedAt: new Date(), carrierMessageId: 'verify-stop-1', sandbox: true });
    assert.equal((await inboundOf(a.accountId)).length + (await inboundOf(b.accountId)).length, 0);
    const consents = await ctx.stack.database.db.selectFrom('sms_consents').selectAll().where('recipient', '=', customer).execute();
    assert.deepEqual(consents.map((c) => [c.account_id, c.sender, c.opted_out]).sort(), [[a.accountId, platform, true], [b.accountId, platform, true]].sort());
  });

  it('checks the from of a verification too', async () => {
    const a = await client();
    const b = await client();
    await ctx.stack.services.senders.registerSender({ accountId: a.accountId, livemode: false, sender: 'Verifyco' });
    const refused = await b.call('POST', '/v1/verifications', { to: freshNumber(), channel: 'sms', from: 'Verifyco' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'sender_not_registered');
    assert.equal((await a.call('POST', '/v1/verifications', { to: freshNumber(), channel: 'sms', from: 'Verifyco' })).status, 201);
  });
});
