import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toSpokenText, UNSPEAKABLE_REPLY } from '../../src/channels/voice/spoken-text';

describe('toSpokenText (voice replies)', () => {
  it('drops citation marks and keeps the sentences', () => {
    assert.equal(
      toSpokenText('Standard shipping takes 3 to 5 business days [1]. Express shipping arrives the next day [2, 3].'),
      'Standard shipping takes 3 to 5 business days. Express shipping arrives the next day.',
    );
  });

  it('reads no URL: links keep their label, a URL after "see"/"at" becomes "our website", a bare one goes', () => {
    assert.equal(toSpokenText('Read [the returns guide](https://help.example.com/returns) first.'), 'Read the returns guide first.');
    assert.equal(toSpokenText('More details at https://help.example.com/returns.'), 'More details at our website.');
    assert.equal(toSpokenText('Print the label: https://x.example/label'), 'Print the label.');
    assert.equal(toSpokenText('Go to www.example.com now'), 'Go to our website now.');
    assert.equal(toSpokenText('https://only.example/a-link'), UNSPEAKABLE_REPLY);
  });

  it('turns markdown structure into plain sentences', () => {
    assert.equal(
      toSpokenText('## Returns\n\n**Returns** are free within *30 days*.\n\n- Pack the item\n- Print the label'),
      'Returns. Returns are free within 30 days. Pack the item. Print the label.',
    );
    assert.equal(toSpokenText('Use `Settings` then:\n```\ncode\n```\nclick Save'), 'Use Settings then. Click Save.');
    assert.equal(toSpokenText('| Plan | Price |\n|---|---|\n| Basic | 5 dollars |'), 'Plan, Price. Basic, 5 dollars.');
  });

  it('spells out symbols and abbreviations that a voice reads badly, without splitting numbers or addresses', () => {
    assert.equal(toSpokenText('Fees are 3.5% & taxes, e.g. VAT. Mail help@acme.example.'), 'Fees are 3.5 percent and taxes, for example VAT. Mail help@acme.example.');
  });

  it('keeps replies short: at most four sentences and 400 characters, a long sentence cut at a word', () => {
    assert.equal(toSpokenText('One. Two. Three. Four. Five. Six.'), 'One. Two. Three. Four.');
    const long = toSpokenText(`${'word '.repeat(200)}end.`);
    assert.ok(long.length <= 400, `${long.length}`);
    assert.match(long, /word\.$/);
    const sentences = Array.from({ length: 4 }, (_, i) => `Sentence number ${i} ${'is rather long and '.repeat(5)}ends here.`);
    const bounded = toSpokenText(sentences.join(' '));
    assert.ok(bounded.length <= 400);
    assert.ok(bounded.startsWith(sentences[0]!));
  });
});
