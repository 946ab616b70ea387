import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifySender, parseRecipient } from '../../src/domain/phone-addresses';
import { classifyKeyword } from '../../src/sms/consent-keywords';
import { priceMessage } from '../../src/sms/pricing';
import { isQuietTime, quietHoursHoldUntil } from '../../src/sms/quiet-hours';

describe('quiet hours', () => {
  it('holds a UK message sent at 22:30 until 08:00 London time', () => {
    assert.equal(quietHoursHoldUntil(new Date('2026-01-15T22:30:00Z'), 'GB')?.toISOString(), '2026-01-16T08:00:00.000Z');
    assert.equal(quietHoursHoldUntil(new Date('2026-07-15T22:30:00Z'), 'GB')?.toISOString(), '2026-07-16T07:00:00.000Z'); // BST
    assert.equal(quietHoursHoldUntil(new Date('2026-01-15T12:00:00Z'), 'GB'), null);
  });

  it('treats the mainland US conservatively: daytime in every zone, 11:00-21:00 Eastern', () => {
    // 10:00 in New York is 07:00 in Los Angeles: held until 08:00 Pacific.
    assert.equal(quietHoursHoldUntil(new Date('2026-01-15T15:00:00Z'), 'US')?.toISOString(), '2026-01-15T16:00:00.000Z');
    assert.equal(isQuietTime(new Date('2026-01-15T16:00:00Z'), 'US'), false);
    // 21:30 in New York: held until the next morning in Los Angeles.
    assert.equal(quietHoursHoldUntil(new Date('2026-01-16T02:30:00Z'), 'US')?.toISOString(), '2026-01-16T16:00:00.000Z');
  });

  it('uses half-hour offsets and falls back to UTC for countries not in the table', () => {
    assert.equal(quietHoursHoldUntil(new Date('2026-01-15T20:00:00Z'), 'IN')?.toISOString(), '2026-01-16T02:30:00.000Z');
    assert.equal(quietHoursHoldUntil(new Date('2026-01-15T23:00:00Z'), 'ZZ')?.toISOString(), '2026-01-16T08:00:00.000Z');
    assert.equal(quietHoursHoldUntil(new Date('2026-01-15T23:00:00Z'), null)?.toISOString(), '2026-01-16T08:00:00.000Z');
  });
});

describe('pricing', () => {
  const prices = { default: '0.0079', GB: '0.0400', XX: '0.00125' };
  it('multiplies the destination rate by the segments, 4 decimals, rounding half up', () => {
    assert.equal(priceMessage({ prices, country: 'US', segments: 1 }), '0.0079');
    assert.equal(priceMessage({ prices, country: 'GB', segments: 3 }), '0.1200');
    assert.equal(priceMessage({ prices, country: 'XX', segments: 1 }), '0.0013');
    assert.equal(priceMessage({ prices, country: null, segments: 10 }), '0.0790');
  });
});

describe('keywords', () => {
  it('recognises opt-out, opt-in and help words as the whole body, case and punctuation aside', () => {
    for (const w of ['STOP', 'stop', ' Stop. ', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']) assert.equal(classifyKeyword(w)?.action, 'opt_out', w);
    assert.equal(classifyKeyword('STOPALL')?.action, 'opt_out_all');
    for (const w of ['START', 'unstop', 'Yes!']) assert.equal(classifyKeyword(w)?.action, 'opt_in', w);
    assert.equal(classifyKeyword('help')?.action, 'help');
    assert.equal(classifyKeyword('please stop'), null);
    assert.equal(classifyKeyword('STOP IT'), null);
  });
});

describe('addresses', () => {
  it('accepts valid E.164 recipients only', () => {
    assert.deepEqual(parseRecipient('+14155550100'), { ok: true, number: '+14155550100', country: 'US' });
    assert.equal(parseRecipient('14155550100').ok, false);
    assert.equal(parseRecipient('+1415555010').ok, false);
    assert.equal(parseRecipient('+15555555555').ok, false);
  });

  it('classifies senders: alphanumeric ID (1-11, a letter), short code (3-8 digits), E.164 number', () => {
    assert.equal(classifySender('Acme'), 'alphanumeric');
    assert.equal(classifySender('Acme Shop 1'), 'alphanumeric');
    assert.equal(classifySender('Acme Shop 12'), null);
    assert.equal(classifySender('12345'), 'short_code');
    assert.equal(classifySender('12'), null);
    assert.equal(classifySender('123456789'), null);
    assert.equal(classifySender('+14155550100'), 'number');
    assert.equal(classifySender('Ac-me'), null);
  });
});
