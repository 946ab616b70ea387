import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CitationStripStream, parseCitations } from '../../src/agents/planner/remote/remote-prompt';
import { sentences } from '../../src/runs/run-reply-stream';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const PASSAGES = [1, 2, 3].map((ref) => ({ ref, sourceId: `src_${ref}`, title: 't', text: 'x', url: null, score: 0.8 }));

describe('CitationStripStream', () => {
  it('passes on exactly parseCitations(whole).content, whatever the split', () => {
    const atoms = ['Returns ', 'take', ' [1]', '[2, 3]', ' .', '  ', '\n', '[^1]', '【2】', ' [', '4]', ',', ' ok', '[x]', ' !', '\t', 'é', 'A'];
    for (let seed = 1; seed <= 2000; seed++) {
      const rand = rng(seed);
      let whole = '';
      for (let i = 0, n = 1 + Math.floor(rand() * 25); i < n; i++) whole += atoms[Math.floor(rand() * atoms.length)];
      const pieces: string[] = [];
      const out: string[] = [];
      const stream = new CitationStripStream((t) => out.push(t));
      for (let i = 0; i < whole.length; ) {
        const n = 1 + Math.floor(rand() * 5);
        pieces.push(whole.slice(i, i + n));
        i += n;
      }
      for (const p of pieces) stream.push(p);
      stream.end();
      assert.equal(out.join(''), parseCitations(whole, PASSAGES).content, `seed ${seed}: ${JSON.stringify(pieces)}`);
    }
  });
});

describe('sentences (the local planner streams sentence by sentence)', () => {
  it('splits after sentence ends and joins back to the reply', () => {
    assert.deepEqual(sentences('Standard shipping takes 3 to 5 days. Express is next day! Anything else?'), ['Standard shipping takes 3 to 5 days. ', 'Express is next day! ', 'Anything else?']);
    for (const t of ['', 'One', 'a.b.c', 'Hallo。Wie geht es？Gut', 'Line one\nLine two', '...']) assert.equal(sentences(t).join(''), t);
  });
});
