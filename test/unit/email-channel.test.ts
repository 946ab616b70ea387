import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderEmail, shapeEmailReplyText } from '../../src/channels/email/email-format';
import { parseFieldBlocks, parseInboundEmail } from '../../src/channels/email/email-mime';
import { clickToken, openToken, verifyTrackingToken } from '../../src/channels/email/email-tracking';
import { loadConfig } from '../../src/config/env';
import { parentDomains } from '../../src/channels/email/email-domain.repo';
import { asReturnPath, newReturnPath } from '../../src/channels/email/email-return-path';
import { baseSubject, MAX_REFERENCES, newTextOfReply, parseMessageIds, quoteText, replyReferences, replySubject, threadSubjectKey } from '../../src/channels/email/email-threading';

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'));

describe('email threading', () => {
  it('reads Message-IDs with or without brackets, several per header', () => {
    assert.deepEqual(parseMessageIds('<a@x> <b@y>\r\n <c@z>'), ['a@x', 'b@y', 'c@z']);
    assert.deepEqual(parseMessageIds('bare@x'), ['bare@x']);
    assert.deepEqual(parseMessageIds(['<a@x>', '<b@y>']), ['a@x', 'b@y']);
    assert.deepEqual(parseMessageIds('two words'), []);
    assert.deepEqual(parseMessageIds(undefined), []);
  });

  it('builds References from the parent: its chain, then its Message-ID, capped with the root kept', () => {
    assert.deepEqual(replyReferences({ messageId: 'c@x', references: ['a@x', 'b@x'], inReplyTo: 'b@x' }), ['a@x', 'b@x', 'c@x']);
    assert.deepEqual(replyReferences({ messageId: 'c@x', references: [], inReplyTo: 'b@x' }), ['b@x', 'c@x']);
    assert.deepEqual(replyReferences({ messageId: 'a@x', references: [], inReplyTo: null }), ['a@x']);
    const long = Array.from({ length: 40 }, (_, i) => `m${i}@x`);
    const capped = replyReferences({ messageId: 'last@x', references: long, inReplyTo: null });
    assert.equal(capped.length, MAX_REFERENCES);
    assert.equal(capped[0], 'm0@x');
    assert.equal(capped[capped.length - 1], 'last@x');
  });

  it('strips reply and forward prefixes in several languages, once "Re:" on the way out', () => {
    assert.equal(baseSubject('Re: RE: Fwd: AW: Shipping  question'), 'Shipping question');
    assert.equal(baseSubject('Re[2]: SV: Order'), 'Order');
    assert.equal(baseSubject('Regarding my order'), 'Regarding my order', 'a word starting with "Re" is not a prefix');
    assert.equal(replySubject('Re: re: Shipping'), 'Re: Shipping');
    assert.equal(threadSubjectKey('FWD: Refund For ORDER 1'), 'refund for order 1');
  });

  it('keeps only the new text of a reply (attribution, quoted lines, separators and signatures cut)', () => {
    assert.equal(newTextOfReply('Thanks!\n\nOn Mon, 23 Nov 2026 at 10:00, Acme <s@acme.test> wrote:\n> old text\n> more'), 'Thanks!');
    assert.equal(newTextOfReply('Merci\n\nLe lun. 23 nov. 2026 à 10:00, Acme <s@acme.test> a écrit :\n> ancien'), 'Merci');
    assert.equal(newTextOfReply('Sure\nOn Mon, Nov 23, 2026 at 10:00 AM Acme Support <s@acme.test>\nwrote:\n> old'), 'Sure');
    assert.equal(newTextOfReply('Yes\n\n-----Original Message-----\nFrom: x'), 'Yes');
    assert.equal(newTextOfReply('Yes\n-- \nAda, CEO'), 'Yes');
    assert.equal(newTextOfReply('> only a quote\n> nothing new'), '> only a quote\n> nothing new', 'nothing new: the text as it is');
    assert.equal(newTextOfReply('I said:\n> a quote in the middle\nand then more'), 'I said:\n> a quote in the middle\nand then more');
    assert.equal(newTextOfReply('New\n> a\n\n> b\n>\n'), 'New', 'the trailing quote block, blank lines inside it');
    assert.equal(newTextOfReply(`${'> q\n'.repeat(3)}Answer\n> old`), `${'> q\n'.repeat(3)}Answer`, 'quotes before new text stay');
  });

  it('quotes shortly, on a word boundary', () => {
    assert.equal(quoteText('Hello\n\nthere'), '> Hello\n>\n> there');
    const quoted = quoteText('word '.repeat(200), 50);
    assert.ok(quoted.length <= 60, quoted);
    assert.match(quoted, /^> word .* …$/);
  });
});

describe('email shaping and rendering', () => {
  it('removes citation marks and markdown, and links the cited sources once', () => {
    const text = shapeEmailReplyText('**Refunds** are issued within 14 days [1]. See [the policy](https://help.test/refunds) [1, 2].', [
      { title: 'Refund policy', url: 'https://help.test/refunds', snippet: '' },
      { title: 'Refund policy again', url: 'https://help.test/refunds', snippet: '' },
      { title: 'No url', url: null, snippet: '' },
    ]);
    assert.equal(text, 'Refunds are issued within 14 days. See the policy (https://help.test/refunds).\n\nSource: Refund policy: https://help.test/refunds');
    assert.equal(shapeEmailReplyText('No sources here.', []), 'No sources here.');
  });

  it('renders text and HTML with the quote, tracked links and the pixel, escaping what it writes', () => {
    const out = renderEmail({
      content: 'Refunds take <14> days.\n\nSource: https://help.test/refunds?a=1&b=2.',
      quoted: { text: 'When do I get my money?', from: 'ada@customer.test', date: new Date('2026-11-23T10:00:00Z') },
      trackLink: (u) => `https://t.test/c?u=${encodeURIComponent(u)}`,
      pixelUrl: 'https://t.test/o.gif',
    });
    assert.match(out.text, /Source: https:\/\/t\.test\/c\?u=https%3A%2F%2Fhelp\.test%2Frefunds%3Fa%3D1%26b%3D2\./, 'the trailing period stays outside the link');
    assert.match(out.text, /On Mon, 23 Nov 2026 10:00:00 GMT, ada@customer\.test wrote:\n> When do I get my money\?$/);
    assert.match(out.html, /Refunds take &lt;14&gt; days\./);
    assert.match(out.html, /<a href="https:\/\/t\.test\/c\?u=https%3A%2F%2Fhelp\.test%2Frefunds%3Fa%3D1%26b%3D2">https:\/\/help\.test\/refunds\?a=1&amp;b=2<\/a>\./);
    assert.match(out.html, /<blockquote[^>]*>When do I get my money\?<\/blockquote>/);
    assert.match(out.html, /<img src="https:\/\/t\.test\/o\.gif"/);
    const plain = renderEmail({ content: 'See https://help.test/x' });
    assert.equal(plain.text, 'See https://help.test/x');
    assert.doesNotMatch(plain.html, /<img|blockquote/);
  });
});

describe('email tracking tokens', () => {
  const key = Buffer.alloc(32, 7);
  it('verify for their email and purpose only; a click token binds its destination', () => {
    const open = openToken(key, 'em_1');
    assert.equal(verifyTrackingToken(key, open, 'open'), 'em_1');
    assert.equal(verifyTrackingToken(key, open, 'click'), undefined);
    assert.equal(verifyTrackingToken(key, open.replace('em_1', 'em_2'), 'open'), undefined);
    assert.equal(verifyTrackingToken(Buffer.alloc(32, 8), open, 'open'), undefined);
    const click = clickToken(key, 'em_1', 'https://a.test/');
    assert.equal(verifyTrackingToken(key, click, 'click', 'https://a.test/'), 'em_1');
    assert.equal(verifyTrackingToken(key, click, 'click', 'https://evil.test/'), undefined);
    assert.equal(verifyTrackingToken(key, 'garbage', 'open'), undefined);
  });
});

describe('inbound MIME', () => {
  it('reads a customer email: ids, subject, sender, recipients (Delivered-To first), new text, automated flags', async () => {
    const mail = await parseInboundEmail(
      crlf([
        'Delivered-To: Support@Acme.test',
        'From: "Ada L." <ada@customer.test>',
        'To: sales@acme.test, Support <support@acme.test>',
        'Cc: ops@acme.test',
        'Subject: =?UTF-8?Q?Re:_Caf=C3=A9?=',
        'Message-ID: <m2@customer.test>',
        'In-Reply-To: <m1@acme.test>',
        'References: <m0@customer.test>\r\n <m1@acme.test>',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        'Is the caf=C3=A9 open?',
        '',
        'On Mon, 23 Nov 2026, Acme <support@acme.test> wrote:',
        '> Yes',
        '',
      ]),
    );
    assert.equal(mail.messageId, 'm2@customer.test');
    assert.equal(mail.inReplyTo, 'm1@acme.test');
    assert.deepEqual(mail.references, ['m0@customer.test', 'm1@acme.test']);
    assert.equal(mail.subject, 'Re: Café');
    assert.deepEqual(mail.from, { address: 'ada@customer.test', name: 'Ada L.' });
    assert.deepEqual(mail.recipients, ['support@acme.test', 'sales@acme.test', 'ops@acme.test']);
    assert.equal(mail.text, 'Is the café open?');
    assert.equal(mail.automated, false);
    assert.equal(mail.report, null);

    const bulk = await parseInboundEmail(crlf(['From: list@x.test', 'To: support@acme.test', 'Precedence: bulk', 'Subject: News', '', 'Hi']));
    assert.equal(bulk.automated, true);
    const auto = await parseInboundEmail(crlf(['From: a@x.test', 'To: support@acme.test', 'Auto-Submitted: auto-generated', '', 'Away']));
    assert.equal(auto.automated, true);
    assert.equal(auto.messageId, null);
  });

  it('reads a delivery status notification: the failed recipient, status, diagnostic and the original Message-ID', async () => {
    const mail = await parseInboundEmail(
      crlf([
        'From: MAILER-DAEMON@mx.test',
        'To: support@acme.test',
        'Subject: Delivery Status Notification (Failure)',
        'Content-Type: multipart/report; report-type="delivery-status"; boundary=xyz',
        '',
        '--xyz',
        'Content-Type: text/plain',
        '',
        'Delivery failed.',
        '--xyz',
        'Content-Type: message/delivery-status',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('Reporting-MTA: dns; mx.test\n\nFinal-Recipient: rfc822; <bob@customer.test>\nAction: failed\nStatus: 4.4.7 (delivery time expired)\nDiagnostic-Code: smtp; 421 4.4.7 too\n  many retries\n').toString('base64'),
        '--xyz',
        'Content-Type: message/rfc822',
        '',
        'From: support@acme.test',
        'Message-ID:',
        ' <msg_1@converse.test>',
        'Subject: Re: Hello',
        '',
        'Body',
        '--xyz--',
      ]),
    );
    assert.equal(mail.text, '');
    assert.deepEqual(mail.report, {
      type: 'delivery_status',
      originalMessageId: 'msg_1@converse.test',
      recipients: [{ recipient: 'bob@customer.test', action: 'failed', status: '4.4.7', diagnostic: 'smtp; 421 4.4.7 too many retries' }],
    });
  });

  it('reads a feedback report (ARF): its type and the original Message-ID', async () => {
    const mail = await parseInboundEmail(
      crlf([
        'From: fbl@isp.test',
        'To: support@acme.test',
        'Content-Type: multipart/report; report-type=feedback-report; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'Report',
        '--b',
        'Content-Type: message/feedback-report',
        '',
        'Feedback-Type: Fraud',
        'User-Agent: FBL/2',
        '--b',
        'Content-Type: text/rfc822-headers',
        '',
        'Message-ID: <msg_2@converse.test>',
        '--b--',
      ]),
    );
    assert.deepEqual(mail.report, { type: 'feedback', originalMessageId: 'msg_2@converse.test', feedbackType: 'fraud', userAgent: 'FBL/2' });
  });

  it('parses header-style field blocks with folding, first value winning', () => {
    assert.deepEqual(
      parseFieldBlocks('A: 1\nB: 2\n  continued\nA: ignored\n\nC: 3').map((m) => Object.fromEntries(m)),
      [{ a: '1', b: '2 continued' }, { c: '3' }],
    );
  });
});

describe('email domains and return paths', () => {
  it('reads EMAIL_DNS_SERVERS as name servers, refuses anything else, and derives the return path domain', () => {
    const config = loadConfig({ EMAIL_DNS_SERVERS: '127.0.0.1:5353, [::1]:53,9.9.9.9', EMAIL_FROM: 'help@acme.example' });
    assert.deepEqual(config.email.dnsServers, ['127.0.0.1:5353', '[::1]:53', '9.9.9.9']);
    assert.equal(config.email.returnPathDomain, 'acme.example');
    assert.deepEqual(loadConfig({}).email.dnsServers, []);
    assert.throws(() => loadConfig({ EMAIL_DNS_SERVERS: 'dns.google' }), /EMAIL_DNS_SERVERS/);
  });

  it('covers a domain by itself and its parents; recognises only well-formed return paths of our domain', () => {
    assert.deepEqual(parentDomains('Mail.Acme.example.'), ['mail.acme.example', 'acme.example']);
    const path = newReturnPath('Bounces.Converse.test');
    assert.match(path, /^bounces\+[0-9a-f]{24}@bounces\.converse\.test$/);
    assert.equal(asReturnPath(path.toUpperCase(), 'bounces.converse.test'), path, 'case-folded by a relay');
    assert.equal(asReturnPath(path, 'other.test'), undefined);
    assert.equal(asReturnPath('bounces+xyz@bounces.converse.test', 'bounces.converse.test'), undefined);
    assert.equal(asReturnPath('support@bounces.converse.test', 'bounces.converse.test'), undefined);
  });
});

