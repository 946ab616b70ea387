import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { apiClient } from '../support/http';
import { FakeSmsCarrier } from '../support/sms-messages-fake-carrier';
import { useTestStack } from '../support/stack';

const carrier = new FakeSmsCarrier();
const ctx = useTestStack({ label: __filename, smsCarriers: carrier });

async function codeSentTo(to: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const sms = carrier.submitsTo(to)[0];
    if (sms) return /(\d{6})/.exec(sms.body)![1]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`no SMS reached ${to}`);
}

describe('OTP codes at rest', () => {
  it('never stores the code in clear, in the message row or the verification row, and still checks it', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const to = '+14155553101';
    const created = await call('POST', '/v1/verifications', { to, channel: 'sms' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const v = created.body;
    const code = await codeSentTo(to);
    assert.match(carrier.submitsTo(to)[0]!.body, new RegExp(`code is ${code}\\.`), 'the handset gets the real code');

    const db = ctx.stack.database.db;
    const message = await db.selectFrom('messages').selectAll().where('id', '=', v.message_id).executeTakeFirstOrThrow();
    assert.ok(!message.body.includes(code), `messages.body holds the code: ${message.body}`);
    assert.match(message.body, /code is \*{6}\./);
    for (let i = 0; i < 100 && (await db.selectFrom('messages').select('body_sealed').where('id', '=', v.message_id).executeTakeFirstOrThrow()).body_sealed; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const after = await db.selectFrom('messages').select('body_sealed').where('id', '=', v.message_id).executeTakeFirstOrThrow();
    assert.equal(after.body_sealed, null, 'the sealed text is dropped once the carrier has it');

    // The stored hash is keyed by the server secret, not by the (public) verification id alone.
    const row = await db.selectFrom('verifications').selectAll().where('id', '=', v.id).executeTakeFirstOrThrow();
    const byPublicId = createHmac('sha256', v.id).update(code).digest('hex');
    assert.ok(!row.code_hash.includes(byPublicId), 'the hash can be recomputed from public data');
    assert.ok(!row.code_hash.includes(code));

    const checked = await call('POST', `/v1/verifications/${v.id}/check`, { code });
    assert.equal(checked.body.valid, true);
  });
});
