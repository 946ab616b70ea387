import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccountPacing } from '../../src/sms/account-pacing';
import { renderTemplate, templateVariables } from '../../src/sms/body-template';

describe('batch body templates', () => {
  it('fills every placeholder, spaces inside the braces allowed, and leaves other braces alone', () => {
    assert.deepEqual(renderTemplate('Hi {{name}}, {{ code }} {x} {{1bad}}', { name: 'Ann', code: '42' }), { ok: true, body: 'Hi Ann, 42 {x} {{1bad}}' });
    assert.deepEqual(templateVariables('{{a}} {{b}} {{a}}'), ['a', 'b']);
  });

  it('names the placeholders without a value instead of rendering them empty', () => {
    assert.deepEqual(renderTemplate('Hi {{name}}, code {{code}}', { name: '' }), { ok: false, missing: ['code'] });
  });

  it('adds up the rendered length before rendering and refuses a body over maxLength with its length (issue 28 #7)', () => {
    assert.deepEqual(renderTemplate('{{a}}'.repeat(320), { a: 'a'.repeat(1600) }, { maxLength: 1600 }), { ok: false, length: 512_000 });
    assert.deepEqual(renderTemplate('ab {{x}} {{x}}!', { x: '123' }, { maxLength: 11 }), { ok: true, body: 'ab 123 123!' });
    assert.deepEqual(renderTemplate('ab {{x}} {{x}}!', { x: '1234' }, { maxLength: 11 }), { ok: false, length: 13 });
  });
});

describe('per-account SMS throughput', () => {
  const clockAt = (t: { now: number }) => ({ now: () => t.now, sleep: async () => undefined });
  const msg = (id: string, account_id: string) => ({ id, account_id, livemode: true });

  it('admits a second\'s worth per account and defers the rest a second apart; other accounts are not held', () => {
    const t = { now: 0 };
    const pacing = new AccountPacing({ acct_a: 2 }, clockAt(t));
    const round = [msg('a1', 'acct_a'), msg('a2', 'acct_a'), msg('b1', 'acct_b'), msg('a3', 'acct_a'), msg('a4', 'acct_a'), msg('a5', 'acct_a')];
    const first = pacing.admit(round);
    assert.deepEqual(first.now.map((m) => m.id), ['a1', 'a2', 'b1']);
    assert.deepEqual(first.deferred.map((d) => [d.message.id, d.deferMs]), [['a3', 500], ['a4', 500], ['a5', 1500]]);

    t.now = 1000; // two more tokens
    const next = pacing.admit(first.deferred.map((d) => d.message));
    assert.deepEqual(next.now.map((m) => m.id), ['a3', 'a4']);
    assert.deepEqual(next.deferred.map((d) => d.message.id), ['a5']);
  });

  it('keeps the modes of one account apart', () => {
    const pacing = new AccountPacing({ acct_a: 1 }, clockAt({ now: 0 }));
    const { now } = pacing.admit([{ id: 'live', account_id: 'acct_a', livemode: true }, { id: 'test', account_id: 'acct_a', livemode: false }]);
    assert.deepEqual(now.map((m) => m.id), ['live', 'test']);
  });
});
