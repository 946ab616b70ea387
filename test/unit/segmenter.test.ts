import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { segmentSms } from '../../src/sms/segmenter';

describe('segmentSms', () => {
  it('fits 160 GSM-7 characters in one segment and splits 161 into 153 + 8', () => {
    const a160 = segmentSms('a'.repeat(160));
    assert.deepEqual([a160.encoding, a160.segments, a160.units], ['GSM-7', 1, 160]);
    const a161 = segmentSms('a'.repeat(161));
    assert.equal(a161.segments, 2);
    assert.deepEqual(a161.parts.map((p) => p.length), [153, 8]);
    assert.equal(segmentSms('a'.repeat(306)).segments, 2);
    assert.equal(segmentSms('a'.repeat(307)).segments, 3);
  });

  it('fits 70 UCS-2 code units in one segment and splits 71 into 67 + 4', () => {
    const u70 = segmentSms('ж'.repeat(70));
    assert.deepEqual([u70.encoding, u70.segments, u70.units], ['UCS-2', 1, 70]);
    const u71 = segmentSms('ж'.repeat(71));
    assert.equal(u71.segments, 2);
    assert.deepEqual(u71.parts.map((p) => p.length), [67, 4]);
  });

  it('counts €, ^ and { as two septets each (escape + character)', () => {
    for (const c of ['€', '^', '{', '}', '[', ']', '~', '|', '\\']) {
      const s = segmentSms(c);
      assert.deepEqual([s.encoding, s.units], ['GSM-7', 2], c);
    }
    assert.equal(segmentSms('€'.repeat(80)).segments, 1);
    assert.equal(segmentSms('€'.repeat(81)).segments, 2);
    assert.equal(segmentSms(`${'a'.repeat(159)}€`).segments, 2);
  });

  it('never splits an escape pair across segments', () => {
    // 152 septets then '{' (2 septets): the escape pair moves whole to segment 2.
    const s = segmentSms(`${'a'.repeat(152)}{${'b'.repeat(10)}`);
    assert.equal(s.encoding, 'GSM-7');
    assert.deepEqual(s.parts, ['a'.repeat(152), `{${'b'.repeat(10)}`]);
  });

  it('keeps an emoji (surrogate pair) whole at a segment boundary', () => {
    assert.deepEqual([segmentSms('😀').encoding, segmentSms('😀').units], ['UCS-2', 2]);
    assert.equal(segmentSms('😀'.repeat(35)).segments, 1);
    // 66 code units then an emoji: it cannot be cut after its high surrogate.
    const s = segmentSms(`${'ж'.repeat(66)}😀${'ж'.repeat(5)}`);
    assert.equal(s.segments, 2);
    assert.deepEqual(s.parts, ['ж'.repeat(66), `😀${'ж'.repeat(5)}`]);
    for (const p of s.parts) assert.ok(!/[\uD800-\uDBFF]$/.test(p), 'no lone high surrogate at a part end');
  });

  it('counts CRLF as two characters', () => {
    const s = segmentSms(`${'a'.repeat(158)}\r\n`);
    assert.deepEqual([s.encoding, s.units, s.segments], ['GSM-7', 160, 1]);
    assert.equal(segmentSms(`${'a'.repeat(159)}\r\n`).segments, 2);
  });

  it('switches the whole body to UCS-2 for one character outside GSM-7', () => {
    const s = segmentSms(`${'a'.repeat(69)}ś`);
    assert.deepEqual([s.encoding, s.units, s.segments], ['UCS-2', 70, 1]);
    assert.equal(segmentSms(`${'a'.repeat(70)}ś`).segments, 2);
  });
});
