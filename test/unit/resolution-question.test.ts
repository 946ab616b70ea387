import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conversationFacts, countsAt, DAY_MS, HOUR_MS } from '../../src/analytics/conversation-facts';
import { segmentSms } from '../../src/sms/segmenter';
import { DEFAULT_RESOLUTION_QUESTIONS, isConfirmation, ownReplyText, resolutionQuestion, withResolutionQuestion } from '../../src/conversations/resolution-question';

describe('resolution question: which line is asked', () => {
  const on = { enabled: true };
  it('asks only on SMS and email, only when the agent enables it', () => {
    assert.equal(resolutionQuestion({ setting: on, channel: 'sms', agentLocales: ['en'] }), DEFAULT_RESOLUTION_QUESTIONS.en);
    assert.equal(resolutionQuestion({ setting: on, channel: 'email', agentLocales: ['en'] }), DEFAULT_RESOLUTION_QUESTIONS.en);
    assert.equal(resolutionQuestion({ setting: on, channel: 'chat', agentLocales: ['en'] }), undefined, 'chat has its thumbs-up');
    assert.equal(resolutionQuestion({ setting: on, channel: 'voice', agentLocales: ['en'] }), undefined);
    assert.equal(resolutionQuestion({ setting: { enabled: false }, channel: 'sms', agentLocales: ['en'] }), undefined);
    assert.equal(resolutionQuestion({ channel: 'sms', agentLocales: ['en'] }), undefined, 'off by default');
  });

  it("in the customer's language (de, fr, es; fr-CA → fr), the agent's own text first, English otherwise", () => {
    for (const l of ['de', 'fr', 'es']) assert.equal(resolutionQuestion({ setting: on, channel: 'sms', customerLocale: l, agentLocales: ['en'] }), DEFAULT_RESOLUTION_QUESTIONS[l]);
    assert.equal(resolutionQuestion({ setting: on, channel: 'sms', customerLocale: 'fr-CA', agentLocales: ['en'] }), DEFAULT_RESOLUTION_QUESTIONS.fr);
    assert.equal(resolutionQuestion({ setting: on, channel: 'sms', agentLocales: ['es', 'en'] }), DEFAULT_RESOLUTION_QUESTIONS.es, "the agent's first locale when the customer's is unknown");
    assert.equal(resolutionQuestion({ setting: on, channel: 'sms', customerLocale: 'ja', agentLocales: [] }), DEFAULT_RESOLUTION_QUESTIONS.en);
    const own = { enabled: true, text: { fr: 'Ça vous a aidé ? Répondez OUI.' } };
    assert.equal(resolutionQuestion({ setting: own, channel: 'email', customerLocale: 'fr-BE', agentLocales: ['en'] }), 'Ça vous a aidé ? Répondez OUI.');
    assert.equal(resolutionQuestion({ setting: own, channel: 'email', customerLocale: 'de', agentLocales: ['en'] }), DEFAULT_RESOLUTION_QUESTIONS.de, "the default for a language the agent's texts lack");
    assert.equal(withResolutionQuestion('Refunds take 5 days. ', 'Did that answer your question?'), 'Refunds take 5 days.\n\nDid that answer your question?');
    assert.equal(withResolutionQuestion('Refunds take 5 days.', undefined), 'Refunds take 5 days.');
  });
});

describe('resolution question: the default lines keep an SMS in GSM-7', () => {
  it('never turns a GSM-7 answer into UCS-2 (70 characters a segment instead of 160), and a plain yes to each is a yes', () => {
    for (const [locale, question] of Object.entries(DEFAULT_RESOLUTION_QUESTIONS)) {
      assert.equal(segmentSms(question).encoding, 'GSM-7', `${locale}: ${question}`);
    }
    for (const yes of ['YES', 'JA', 'OUI', 'SI', 'sí']) assert.ok(isConfirmation(yes), yes);
  });
});

describe('resolution question: what counts as yes', () => {
  it('a plain yes in en, de, fr, es, with case, accents, punctuation, a thank-you or a thumbs-up emoji', () => {
    for (const yes of ['YES', 'yes', 'Yes!', ' y ', 'Yep.', 'yeah thanks', 'Yes, thank you!', 'Thanks, yes', 'JA', 'ja danke', 'Genau!', 'OUI', 'oui merci', 'Ouais', 'Sí', 'si', 'SI GRACIAS', 'Claro', '👍', '👍🏽', 'yes 👍']) {
      assert.equal(isConfirmation(yes), true, yes);
    }
  });

  it('anything more is a new question for the agent: a no, a question, a bare thanks, a long message', () => {
    for (const no of ['no', 'nein', 'non', 'No, it did not', 'yes but what about shipping?', 'Yes, and how do I return it?', 'thanks', 'merci', 'ok', '', '   ', '?', 'yes '.repeat(20), 'yesterday', 'sigh']) {
      assert.equal(isConfirmation(no), false, JSON.stringify(no));
    }
  });
});

describe('resolution question: an email reply without its quoted history', () => {
  it('keeps the reply above the quote, the separator or the signature, without the attribution line', () => {
    const quoted = (head: string) => `${head}\n\nOn Tue, 3 Nov 2026 at 10:02, Shop <help@shop.example> wrote:\n> Refunds take 5 days.\n>\n> ${DEFAULT_RESOLUTION_QUESTIONS.en}\n`;
    assert.equal(ownReplyText(quoted('Yes')), 'Yes');
    assert.equal(isConfirmation(ownReplyText(quoted('Yes, thanks!'))), true);
    assert.equal(isConfirmation(ownReplyText(quoted('Yes but where is my parcel?'))), false);
    assert.equal(ownReplyText('Oui\r\n\r\nLe mar. 3 nov. 2026 à 10:02, Shop <help@shop.example> a\r\nécrit :\r\n> Les remboursements…'), 'Oui');
    assert.equal(ownReplyText('Ja\n\n-----Ursprüngliche Nachricht-----\nVon: Shop'), 'Ja');
    assert.equal(ownReplyText('Sí\n-- \nAna, enviado desde mi móvil'), 'Sí');
    assert.equal(ownReplyText('No quote here: just text'), 'No quote here: just text');
  });

  it('reads a customer\'s 2 MB line shaped almost like a separator in one pass (a backtracking pattern took hours)', () => {
    const n = 1_000_000;
    const line = `---${' '.repeat(n)}a${'-'.repeat(n)}x`;
    assert.equal(ownReplyText(`Yes\n${line}`), `Yes\n${line}`);
    assert.equal(ownReplyText(`Yes\n---${'-'.repeat(n)}a---\n> quoted`), 'Yes');
  });
});

describe('analytics formulas: a yes by SMS or email (a thumbs-up at the moment of the reply)', () => {
  const T0 = new Date('2026-10-01T09:00:00Z').getTime();
  const at = (ms: number) => new Date(T0 + ms);
  const W = 24 * HOUR_MS;
  const answered = [{ role: 'customer' as const, at: at(0) }, { role: 'agent' as const, at: at(60_000) }];

  it('the yes is confirmed at once, and the yes message itself is no reopen nor a follow-up', () => {
    const yesAt = at(10 * 60_000);
    const f = conversationFacts({ createdAt: at(0), closedAt: null, handedOffNow: false, messages: [...answered, { role: 'customer', at: yesAt }], handoffs: [], feedback: [{ rating: 'up', at: yesAt }] }, W);
    assert.equal(f.resolution, 'confirmed');
    const c = countsAt(f, at(10 * 60_000));
    assert.equal(c.confirmed, true);
    assert.equal(f.reopenedAt, null);
    assert.equal(countsAt(f, at(10 * 60_000 + 7 * DAY_MS)).durable, true);
  });

  it('a new question after the yes, within 7 days, reopens it; after 7 days it stays durable', () => {
    const yesAt = at(10 * 60_000);
    const base = { createdAt: at(0), closedAt: null, handedOffNow: false, handoffs: [], feedback: [{ rating: 'up' as const, at: yesAt }] };
    const day6 = conversationFacts({ ...base, messages: [...answered, { role: 'customer', at: yesAt }, { role: 'customer', at: at(6 * DAY_MS) }] }, W);
    assert.equal(countsAt(day6, at(8 * DAY_MS)).reopened, true);
    assert.equal(countsAt(day6, at(8 * DAY_MS)).durable, false);
    const day8 = conversationFacts({ ...base, messages: [...answered, { role: 'customer', at: yesAt }, { role: 'customer', at: at(8 * DAY_MS) }] }, W);
    assert.equal(countsAt(day8, at(9 * DAY_MS)).reopened, false);
    assert.equal(countsAt(day8, at(9 * DAY_MS)).durable, true);
  });

  it('a yes after a handoff is not the agent resolving it', () => {
    const f = conversationFacts({ createdAt: at(0), closedAt: null, handedOffNow: true, messages: [...answered, { role: 'customer', at: at(2 * 60_000) }, { role: 'customer', at: at(30 * 60_000) }], handoffs: [{ at: at(3 * 60_000), reason: 'customer_requested' }], feedback: [{ rating: 'up', at: at(30 * 60_000) }] }, W);
    assert.equal(f.resolution, null);
    assert.equal(f.handedOff, true);
  });
});
