import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { segmentSms } from '../../src/sms/segmenter';
import { plainSmsText, preferGsm7, shapeSmsReply, SMS_REPLY_MAX_SEGMENTS } from '../../src/channels/sms/sms-reply-shaping';

const LINK = 'https://converse.example.com/l/Ab3dE6fG7h';
const LINK2 = 'https://converse.example.com/l/Zz9yX8wV7u';

describe('plain text for SMS', () => {
  it('strips markdown and citation marks, keeping the words', () => {
    const text = [
      '## Refunds',
      '**Refunds** are issued within *14 days* [1].',
      '- Open `Settings` [2]',
      '- Choose [Security](https://help.example.com/security)[1, 2]',
      '> Quoted line',
      '```',
      'code()',
      '```',
      '---',
    ].join('\n');
    assert.equal(plainSmsText(text), 'Refunds. Refunds are issued within 14 days. Open Settings. Choose Security. Quoted line. code()');
  });

  it('drops other citation mark forms ([^3], 【4】) and the space before them', () => {
    assert.equal(plainSmsText('Express arrives tomorrow [^3]. Standard takes 3 days【4】.'), 'Express arrives tomorrow. Standard takes 3 days.');
  });

  it('swaps typographic characters for GSM-7 ones only when that makes the text GSM-7', () => {
    assert.equal(preferGsm7('It’s “free” — really…'), 'It\'s "free" - really...');
    // Greek is UCS-2 anyway: the quotes stay as written.
    assert.equal(preferGsm7('Η επιστροφή είναι “δωρεάν”'), 'Η επιστροφή είναι “δωρεάν”');
  });
});

describe('shaping an SMS reply', () => {
  it('appends the short links of cited sources, once each, and keeps a short answer whole in one segment', () => {
    const shaped = shapeSmsReply({ text: 'Refunds take 14 days [1].', links: [LINK, LINK] });
    assert.equal(shaped.body, `Refunds take 14 days. ${LINK}`);
    assert.deepEqual([shaped.segments, shaped.encoding, shaped.shortened], [1, 'GSM-7', false]);
  });

  it('keeps a long GSM-7 answer within the budget (3 × 153 characters), dropping whole sentences from the end', () => {
    const sentences = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} explains one more detail of the refund policy.`);
    const shaped = shapeSmsReply({ text: sentences.join(' '), links: [LINK] });
    assert.equal(shaped.encoding, 'GSM-7');
    assert.equal(shaped.segments, SMS_REPLY_MAX_SEGMENTS);
    assert.ok(shaped.body.length <= 3 * 153, `${shaped.body.length} characters`);
    assert.ok(shaped.shortened);
    assert.ok(shaped.body.endsWith(`policy. ${LINK}`), shaped.body);
    const kept = shaped.body.slice(0, -LINK.length - 1);
    // Whole sentences, in order, as many as fit.
    const n = kept.split('. ').length;
    assert.equal(kept, sentences.slice(0, n).join(' '));
    assert.ok(segmentSms(`${kept} ${sentences[n]} ${LINK}`).segments > SMS_REPLY_MAX_SEGMENTS, 'one more sentence would not fit');
  });

  it('counts a UCS-2 answer in 67-unit segments (emoji are two units each) and fits it in the budget', () => {
    const sentences = Array.from({ length: 8 }, (_, i) => `Η παράδοση ${i + 1} φτάνει σε τρεις ημέρες 📦.`);
    const shaped = shapeSmsReply({ text: sentences.join(' '), links: [LINK] });
    assert.equal(shaped.encoding, 'UCS-2');
    const seg = segmentSms(shaped.body);
    assert.equal(shaped.segments, seg.segments);
    assert.ok(shaped.segments <= SMS_REPLY_MAX_SEGMENTS);
    assert.ok(seg.units <= 3 * 67, `${seg.units} units`);
    // Counted in 67-unit segments the kept text needs all 3: cutting did not stop early (nor count 153s).
    assert.ok(seg.units > 2 * 67, `${seg.units} units`);
    assert.ok(shaped.body.endsWith(`📦. ${LINK}`), shaped.body);
  });

  it('a single non-GSM character makes the whole reply UCS-2 and is counted so', () => {
    const text = `${'a'.repeat(100)} ł`;
    const shaped = shapeSmsReply({ text, links: [] });
    assert.deepEqual([shaped.encoding, shaped.segments], ['UCS-2', 2]);
  });

  it('drops links beyond the first, then cuts the first sentence at a word, when nothing else fits', () => {
    const long = `${'word '.repeat(120).trim()}.`;
    const shaped = shapeSmsReply({ text: long, links: [LINK, LINK2] });
    assert.ok(shaped.segments <= SMS_REPLY_MAX_SEGMENTS);
    assert.ok(shaped.body.endsWith(`word... ${LINK}`), shaped.body);
    assert.ok(!shaped.body.includes(LINK2));
  });

  it('links at most two sources', () => {
    const shaped = shapeSmsReply({ text: 'Yes.', links: [LINK, LINK2, 'https://converse.example.com/l/third00000'] });
    assert.equal(shaped.body, `Yes. ${LINK} ${LINK2}`);
  });
});

describe('preferGsm7 on a signed reply', () => {
  it('keeps an SMS in GSM-7 when only typographic punctuation keeps it out', () => {
    const signed = `${'Your table for four is confirmed for 8 pm on Friday. '.repeat(2)}We’ll see you then.\n— Dana`;
    assert.equal(segmentSms(signed).encoding, 'UCS-2');
    assert.equal(segmentSms(signed).segments, 2, 'a dash and an apostrophe make 132 characters two segments');
    const sent = preferGsm7(signed);
    assert.ok(sent.endsWith("We'll see you then.\n- Dana"), sent);
    assert.deepEqual([segmentSms(sent).encoding, segmentSms(sent).segments], ['GSM-7', 1]);
    assert.equal(preferGsm7('« Merci » … à bientôt'), '« Merci » … à bientôt', 'ô has no GSM-7 form: nothing replaced');
    assert.equal(preferGsm7('Danke – bis bald'), 'Danke - bis bald');
    assert.equal(preferGsm7('Thanks — 👍'), 'Thanks — 👍', 'an emoji needs UCS-2 anyway');
    assert.equal(preferGsm7('Plain text.'), 'Plain text.');
  });
});
