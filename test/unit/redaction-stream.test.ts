import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactText } from '../../src/privacy/redaction';
import { REDACTION_CORPUS, SENSITIVE, valuesInClear } from '../../src/privacy/redaction-corpus';
import { RedactionStream } from '../../src/privacy/redaction-stream';

/** A small deterministic PRNG, so a failure names its seed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** Code-point-safe random split of `text` into pieces of 1..max code points. */
function split(text: string, rand: () => number, max = 6): string[] {
  const cps = [...text];
  const out: string[] = [];
  for (let i = 0; i < cps.length; ) {
    const n = 1 + Math.floor(rand() * max);
    out.push(cps.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

/** Streams `pieces`; returns what was sent after each piece, and the end. */
function stream(pieces: string[]) {
  const r = new RedactionStream();
  const sent = pieces.map((p) => r.push(p));
  sent.push(r.end());
  return sent;
}

const PROSE = 'Thanks for writing. Here is what we have on file, please check it: ';

describe('RedactionStream', () => {
  it('sends exactly redactText of the whole, for every corpus entry under many random splits', () => {
    for (const [n, e] of REDACTION_CORPUS.entries()) {
      const whole = `${PROSE}${e.text} Anything else I can help with today?`;
      const expected = redactText(whole).text;
      for (let seed = 1; seed <= 20; seed++) {
        const rand = rng(n * 1000 + seed);
        const sent = stream(split(whole, rand, 1 + Math.floor(rand() * 8)));
        assert.equal(sent.join(''), expected, `entry ${n} (${e.case}), seed ${seed}`);
      }
    }
  });

  it('never lets a corpus value out in clear before the end, however it is split (a card across two deltas)', () => {
    for (const [n, e] of SENSITIVE.entries()) {
      const whole = `${PROSE}${e.text} Anything else?`;
      for (let seed = 1; seed <= 20; seed++) {
        const sent = stream(split(whole, rng(n * 7919 + seed), 5));
        // Whatever had been sent at any moment holds no value in clear.
        let soFar = '';
        for (const piece of sent) {
          soFar += piece;
          assert.deepEqual(valuesInClear(soFar, [e.value]), [], `entry ${e.case}, seed ${seed}: ${JSON.stringify(soFar)}`);
        }
      }
    }
    // The case the issue names: a card split across two deltas.
    const sent = stream(['Your card 4242 4242 ', '4242 4242 is on file.']);
    assert.equal(sent.join(''), 'Your card [card ••••4242] is on file.');
    assert.ok(!sent[0]!.includes('4242'), `first piece: ${JSON.stringify(sent[0])}`);
  });

  it('agrees with redactText on random text made of digits, separators, letters, keywords and invisible characters', () => {
    const atoms = ['4242', '4', '1', '0', ' ', '-', '.', ' -- ', '\u200b', '\u{E0020}', '４', 'DE89', 'GB82 WEST ', 'AB', 'C', 'x', 'passport ', 'ssn ', 'is ', '\n', 'ok. ', '3704 0044 0532 0130 00', '078-05-1120', 'AB 12 34 56 C'];
    for (let seed = 1; seed <= 400; seed++) {
      const rand = rng(seed);
      let whole = '';
      const n = 10 + Math.floor(rand() * 60);
      for (let i = 0; i < n; i++) whole += atoms[Math.floor(rand() * atoms.length)];
      const sent = stream(split(whole, rand, 1 + Math.floor(rand() * 10)));
      assert.equal(sent.join(''), redactText(whole).text, `seed ${seed}: ${JSON.stringify(whole)}`);
    }
  });

  it('sends plain prose with only a short lag, and bounds its work on endless digits', () => {
    const r = new RedactionStream();
    let sent = '';
    const words = 'The parcel left our warehouse this morning and should reach you within three days. '.split(/(?<= )/);
    for (const w of words) sent += r.push(w);
    const whole = words.join('');
    assert.ok(whole.length - sent.length <= 12, `held ${whole.length - sent.length} characters of prose`);
    assert.equal(sent + r.end(), whole);

    const digits = new RedactionStream();
    const started = performance.now();
    let out = '';
    for (let i = 0; i < 50_000; i++) out += digits.push('1 ');
    out += digits.end();
    assert.equal(out, redactText('1 '.repeat(50_000)).text);
    assert.ok(performance.now() - started < 10_000, `took ${performance.now() - started} ms`);
  });
});
