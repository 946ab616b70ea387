import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verificationWorkflowId } from '../../workflows/shared/verifications.contracts';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { FakeSmsCarrier } from '../support/sms-messages-fake-carrier';
import { useTestStack } from '../support/stack';

const carrier = new FakeSmsCarrier();
const ctx = useTestStack({ label: __filename, smsCarriers: carrier });

let seq = 0;
const freshNumber = () => `+1415555${String(3000 + ++seq)}`;

async function setup() {
  const account = await ctx.stack.newAccount();
  return { ...account, call: apiClient(ctx.stack.baseUrl, account.apiKey) };
}

/** The code as the handset would read it, from the SMS the fake carrier received. */
async function codeSentTo(to: string): Promise<string> {
  const sms = await pollUntil(`an SMS to reach ${to}`, () => carrier.submitsTo(to)[0], { intervalMs: 25, timeoutMs: 10_000 });
  return /(\d{6})/.exec(sms.body)![1]!;
}

const eventsOfType = (accountId: string, type: string) =>
  ctx.stack.database.db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('type', '=', type).execute();

describe('verifications', () => {
  it('sends a code by SMS and approves the right one (verification.approved)', async () => {
    const { call, accountId } = await setup();
    const to = freshNumber();
    const created = await call('POST', '/v1/verifications', { to, channel: 'sms' });
    assert.equal(created.status, 201);
    const v = created.body;
    assert.match(v.id, /^ver_/);
    assert.deepEqual([v.object, v.to, v.channel, v.status, v.attempts, v.max_attempts], ['verification', to, 'sms', 'pending', 0, 5]);
    assert.ok(Date.parse(v.expires_at) > Date.now());

    const code = await codeSentTo(to);
    // The code is stored hashed and never shown through the API, not even on the message.
    const row = await ctx.stack.database.db.selectFrom('verifications').selectAll().where('id', '=', v.id).executeTakeFirstOrThrow();
    assert.ok(!row.code_hash.includes(code));
    const message = await call('GET', `/v1/messages/${v.message_id}`);
    assert.ok(!message.body.body.includes(code));

    const wrong = await call('POST', `/v1/verifications/${v.id}/check`, { code: code === '000000' ? '111111' : '000000' });
    assert.equal(wrong.status, 200);
    assert.deepEqual([wrong.body.valid, wrong.body.status, wrong.body.attempts], [false, 'pending', 1]);
    const right = await call('POST', `/v1/verifications/${v.id}/check`, { code });
    assert.deepEqual([right.body.valid, right.body.status, right.body.attempts], [true, 'approved', 2]);
    assert.equal((await call('GET', `/v1/verifications/${v.id}`)).body.status, 'approved');
    const again = await call('POST', `/v1/verifications/${v.id}/check`, { code });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'verification_not_pending');

    const approved = await eventsOfType(accountId, 'verification.approved');
    assert.equal(approved.length, 1);
    assert.equal((approved[0]!.data as any).id, v.id);
    // Approval ends the expiry timer: no verification.expired later.
    const handle = ctx.env.client.workflow.getHandle(verificationWorkflowId(v.id));
    const state = await pollUntil('the verification workflow to close', async () => {
      const name = (await handle.describe()).status.name;
      return name !== 'RUNNING' && name;
    }, { intervalMs: 25, timeoutMs: 5000 });
    assert.equal(state, 'COMPLETED');
    await ctx.env.sleep('11m');
    assert.equal((await eventsOfType(accountId, 'verification.expired')).length, 0);
  });

  it('expires an unchecked verification at the end of its lifetime (verification.expired)', async () => {
    const { call, accountId } = await setup();
    const to = freshNumber();
    const v = (await call('POST', '/v1/verifications', { to, channel: 'sms' })).body;
    const code = await codeSentTo(to);
    await ctx.env.sleep('9m');
    assert.equal((await call('GET', `/v1/verifications/${v.id}`)).body.status, 'pending');
    await ctx.env.sleep('2m');
    let status = '';
    await pollUntil(`verification ${v.id} to expire`, async () => {
      status = (await call('GET', `/v1/verifications/${v.id}`)).body.status;
      return status === 'expired';
    }, { intervalMs: 25, timeoutMs: 5000, detail: () => `it is ${status}` });
    assert.equal(status, 'expired');
    const late = await call('POST', `/v1/verifications/${v.id}/check`, { code });
    assert.equal(late.status, 409);
    const expired = await eventsOfType(accountId, 'verification.expired');
    assert.deepEqual(expired.map((e) => (e.data as any).id), [v.id]);
  });

  it('locks after too many wrong codes, even against the right one', async () => {
    const { call, accountId } = await setup();
    const to = freshNumber();
    const v = (await call('POST', '/v1/verifications', { to, channel: 'sms' })).body;
    const code = await codeSentTo(to);
    const wrongCode = code === '999999' ? '888888' : '999999';
    for (let i = 1; i <= 5; i++) {
      const res = await call('POST', `/v1/verifications/${v.id}/check`, { code: wrongCode });
      assert.equal(res.status, 200);
      assert.equal(res.body.valid, false);
      assert.equal(res.body.attempts, i);
      assert.equal(res.body.status, i < 5 ? 'pending' : 'max_attempts_reached');
    }
    const locked = await call('POST', `/v1/verifications/${v.id}/check`, { code });
    assert.equal(locked.status, 409);
    assert.equal(locked.body.error.code, 'verification_not_pending');
    assert.equal((await call('GET', `/v1/verifications/${v.id}`)).body.status, 'max_attempts_reached');
    assert.equal((await eventsOfType(accountId, 'verification.approved')).length, 0);
  });

  it('validates the request and keeps accounts apart', async () => {
    const { call } = await setup();
    const bad = await call('POST', '/v1/verifications', { to: '+1', channel: 'sms' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'to');
    const channel = await call('POST', '/v1/verifications', { to: freshNumber(), channel: 'voice' });
    assert.equal(channel.status, 400);
    assert.equal(channel.body.error.param, 'channel');
    const v = (await call('POST', '/v1/verifications', { to: freshNumber(), channel: 'sms' })).body;
    const other = await setup();
    assert.equal((await other.call('GET', `/v1/verifications/${v.id}`)).status, 404);
    assert.equal((await other.call('POST', `/v1/verifications/${v.id}/check`, { code: '123456' })).status, 404);
  });
});
