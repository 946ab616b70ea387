import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSensitiveValues, ibanChecksumValid, luhnValid, redactDeep, redactText } from '../../src/privacy/redaction';
import { compactForm, NEAR_MISSES, SENSITIVE } from '../../src/privacy/redaction-corpus';

const text = (s: string) => redactText(s).text;

/** Appends the Luhn check digit to `body`. */
function withLuhnDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error('unreachable');
}

describe('redactText: card numbers', () => {
  it('redacts Luhn-valid cards in several formats and keeps the last four digits', () => {
    assert.equal(text('card 4242424242424242 please'), 'card [card ••••4242] please');
    assert.equal(text('card 4242 4242 4242 4242.'), 'card [card ••••4242].');
    assert.equal(text('MC: 5555-5555-5555-4444'), 'MC: [card ••••4444]');
    assert.equal(text('amex 3782 822463 10005, exp 12/27'), 'amex [card ••••0005], exp 12/27');
    assert.equal(text('(6011111111111117)'), '([card ••••1117])');
    const nineteen = withLuhnDigit('622126000000000000');
    assert.equal(text(`unionpay ${nineteen}`), `unionpay [card ••••${nineteen.slice(-4)}]`);
    const thirteen = withLuhnDigit('422222222222');
    assert.equal(text(thirteen), `[card ••••${thirteen.slice(-4)}]`);
  });

  it('finds a card typed next to its expiry and two cards in a row', () => {
    assert.equal(text('4111 1111 1111 1111 12 27 cvv 123'), '[card ••••1111] 12 27 cvv 123');
    assert.equal(text('4242 4242 4242 4242 4000 0566 5566 5556'), '[card ••••4242] [card ••••5556]');
  });

  it('keeps Luhn-invalid 16-digit order numbers and other numbers', () => {
    for (const s of [
      'order 1234567812345678 shipped',
      'order #4242424242424241',
      'ref 4242 4242 4242 4243',
      'call +1 415 555 0100 on 2026-03-14',
      'tracking 94001118992230000000000', // 23 digits without separators: an id, not a card
      'p = 0.4242424242424242',
      'total 12,345,678.90',
      'sku AB4242424242424242',
    ]) {
      assert.equal(text(s), s, s);
    }
  });

  it('reports counts per kind', () => {
    const r = redactText('4242424242424242 and 5555555555554444, ssn 123-45-6789');
    assert.deepEqual(r.findings, [{ kind: 'card_number', count: 2 }, { kind: 'us_ssn', count: 1 }]);
    assert.deepEqual(redactText('nothing to see').findings, []);
  });
});

describe('redactText: US SSN', () => {
  it('redacts AAA-GG-SSSS in valid ranges, with dashes or spaces', () => {
    assert.equal(text('SSN 123-45-6789'), 'SSN [redacted ssn]');
    assert.equal(text('it is 078 05 1120.'), 'it is [redacted ssn].');
    assert.equal(text('899-99-9999'), '[redacted ssn]');
  });

  it('keeps never-issued ranges and mixed separators', () => {
    for (const s of ['000-12-3456', '666-12-3456', '900-12-3456', '999-99-9999', '123-00-4567', '123-45-0000', '123-45 6789']) {
      assert.equal(text(s), s, s);
    }
  });

  it('redacts 9 bare digits only after "ssn" or "social security"', () => {
    assert.equal(text('my SSN: 123456789'), 'my SSN: [redacted ssn]');
    assert.equal(text('Social Security number is 078051120'), 'Social Security number is [redacted ssn]');
    assert.equal(text('order 123456789 arrived'), 'order 123456789 arrived');
    assert.equal(text('ssn 666123456'), 'ssn 666123456');
  });
});

describe('redactText: IBAN', () => {
  it('redacts mod-97-valid IBANs, compact or grouped, any case', () => {
    assert.equal(ibanChecksumValid('DE89370400440532013000'), true);
    assert.equal(text('IBAN DE89 3704 0044 0532 0130 00 thanks'), 'IBAN [redacted iban] thanks');
    assert.equal(text('DE89370400440532013000'), '[redacted iban]');
    assert.equal(text('pay to GB82 WEST 1234 5698 7654 32.'), 'pay to [redacted iban].');
    assert.equal(text('FR14 2004 1010 0505 0001 3M02 606'), '[redacted iban]');
    assert.equal(text('fr1420041010050500013m02606'), '[redacted iban]');
    assert.deepEqual(redactText('GB82WEST12345698765432').findings, [{ kind: 'iban', count: 1 }]);
  });

  it('keeps IBAN-shaped strings with a wrong checksum or length', () => {
    for (const s of [
      'DE89 3704 0044 0532 0130 01',
      'DE88370400440532013000',
      'GB82 WEST 1234 5698 7654 33',
      'FR14 2004 1010 0505 0001 3M02 60',
      'XX89370400440532013000',
    ]) {
      assert.equal(text(s), s, s);
    }
  });
});

describe('redactText: UK National Insurance number', () => {
  it('redacts valid NINOs, spaced or not', () => {
    assert.equal(text('NI number AB123456C'), 'NI number [redacted nino]');
    assert.equal(text('AB 12 34 56 C'), '[redacted nino]');
    assert.equal(text('ce123456d'), '[redacted nino]');
  });

  it('keeps prefixes and suffixes that are never issued', () => {
    for (const s of ['QQ123456C', 'DA123456A', 'AO123456A', 'GB123456A', 'NK123456B', 'ZZ123456D', 'AB123456E', 'XAB123456C']) {
      assert.equal(text(s), s, s);
    }
  });
});

describe('redactText: one separator rule for every detector (issue 28 #6)', () => {
  // Every separator the rule allows, each splitting the groups of every kind of value.
  const SEPARATORS = [' ', '-', '.', ',', '/', '_', '*', '\n', '\r\n', '\t', '\u2013', '\u2014', '\u2212', ' -- ', ' / ', ', ', ' * ', ' - '];

  it('splits cards, SSNs, IBANs and NINOs by the same separators', () => {
    const missed: string[] = [];
    for (const sep of SEPARATORS) {
      const cases: [string, RegExp][] = [
        [`card ${['4242', '4242', '4242', '4242'].join(sep)} ok`, /^card \[card ••••4242\] ok$/],
        [`SSN ${['219', '09', '9999'].join(sep)} ok`, /^SSN \[redacted ssn\] ok$/],
        [`IBAN ${['DE89', '3704', '0044', '0532', '0130', '00'].join(sep)} ok`, /^IBAN \[redacted iban\] ok$/],
        [`NI ${['AB', '12', '34', '56', 'C'].join(sep)} ok`, /^NI \[redacted nino\] ok$/],
        [`DNI ${['12345678', 'Z'].join(sep)} ok`, /^DNI \[redacted national id\] ok$/],
      ];
      for (const [input, expected] of cases) if (!expected.test(text(input))) missed.push(`${JSON.stringify(input)} → ${JSON.stringify(text(input))}`);
    }
    assert.deepEqual(missed, []);
  });

  it('keeps an SSN shape whose two separators differ, and lists of years or page ranges', () => {
    for (const s of ['ref 123-45.6789', 'periods (1978-1980, 1981-1983, 1984-1986)', 'J. Biol. Chem. 261, 15424-15429', 'cohorts 1981, 1982, 1983, 1982', 'years 2001, 2002, 2003, 2008', 'SW033291, a small molecule']) {
      assert.equal(text(s), s, s);
    }
  });
});

describe('redactText: every Default_Ignorable_Code_Point is removed before detection (issue 28 #6)', () => {
  it('finds a card whose groups are split by any default-ignorable code point, in the text as written', () => {
    const ignorable = /^\p{Default_Ignorable_Code_Point}$/u;
    const missed: string[] = [];
    let tried = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (!ignorable.test(ch)) continue;
      tried++;
      const input = `card 4242${ch}4242${ch}4242${ch}4242 ok`;
      if (text(input) !== 'card [card ••••4242] ok') missed.push(`U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
    }
    assert.ok(tried > 4000, `${tried} default-ignorable code points`);
    assert.deepEqual(missed, []);
  });

  it('removes U+034F, U+061C, U+FE0F, U+E0020 and U+3164 (the issue\'s cases) around every kind', () => {
    for (const ch of ['\u034f', '\u061c', '\ufe0f', '\u{e0020}', '\u3164']) {
      assert.equal(text(`SSN 219${ch}-09-${ch}9999`), 'SSN [redacted ssn]', `SSN, U+${ch.codePointAt(0)!.toString(16)}`);
      assert.equal(text(`IBAN DE89${ch}3704${ch}0044${ch}0532${ch}0130${ch}00`), 'IBAN [redacted iban]');
      assert.equal(text(`NI AB${ch}123456${ch}C`), 'NI [redacted nino]');
    }
  });
});

describe('redactText: passports and national ids', () => {
  it('redacts an id after a keyword and filler words', () => {
    assert.equal(text('my passport number is X12345678'), 'my passport number is [redacted passport]');
    assert.equal(text('Passport No. 123456789, expires 2030'), 'Passport No. [redacted passport], expires 2030');
    assert.equal(text('Reisepassnummer: C01X00T47'), 'Reisepassnummer: [redacted passport]');
    assert.equal(text('Personalausweis Nr. L01X00T47'), 'Personalausweis Nr. [redacted national id]');
    assert.equal(text('DNI 12345678-Z'), 'DNI [redacted national id]');
    assert.equal(text('mi NIF es 12345678Z'), 'mi NIF es [redacted national id]');
    assert.equal(text('NIE X1234567L'), 'NIE [redacted national id]');
    assert.equal(text('national ID: 9001011234'), 'national ID: [redacted national id]');
  });

  it('keeps ids without a keyword and keywords without an id', () => {
    for (const s of [
      'order A1234567 shipped',
      'my passport expired in 2019',
      'is my passport ready? order AB123456',
      'Ich habe nie 1234567 Euro bekommen',
      'national holiday 2026-01-01',
    ]) {
      assert.equal(text(s), s, s);
    }
  });
});

describe('redactText over the redaction corpus (M4)', () => {
  it('leaves no card, IBAN or national id of the corpus in clear, whatever its separators, spaces or invisible characters', () => {
    assert.ok(SENSITIVE.length > 300);
    const missed: string[] = [];
    for (const e of SENSITIVE) {
      const r = redactText(e.text);
      if (compactForm(r.text).includes(e.value.toUpperCase()) || !r.findings.some((f) => f.kind === e.kind)) missed.push(`${e.case}: ${JSON.stringify(r.text)}`);
    }
    assert.deepEqual(missed, []);
  });

  it('keeps the corpus near misses (dates, decimals, versions, Luhn-invalid numbers, wrong checksums) as written', () => {
    for (const e of NEAR_MISSES) assert.equal(redactText(e.text).text, e.text, e.case);
  });

  it('keeps the text around a match exactly as written (no normalisation outside the match)', () => {
    assert.equal(text('ｶｰﾄﾞ:\u00a04242\u200b4242\u00a04242\u00a04242\u00a0ﾃﾞｽ'), 'ｶｰﾄﾞ:\u00a0[card ••••4242]\u00a0ﾃﾞｽ');
    assert.equal(text('ﬁle 4242.4242.4242.4242 ①'), 'ﬁle [card ••••4242] ①');
    const spread = 'card\n4242\n4242\n4242\n4242\nexp 12/27';
    assert.equal(text(spread), 'card\n[card ••••4242]\nexp 12/27');
    const [m] = findSensitiveValues('IBAN de89-3704-0044-0532-0130-00!');
    assert.deepEqual({ kind: m!.kind, start: m!.start, end: m!.end }, { kind: 'iban', start: 5, end: 32 });
  });
});

describe('redactDeep', () => {
  it('redacts object keys too: a key that two keys redact to is kept for both, "__proto__" stays an entry (issue 28 #6)', () => {
    const toolResult = JSON.parse(
      '{"4242 4242 4242 4242": "primary", "4242\u034f4242\u034f4242\u034f4242": "backup", "[card ••••4242]": "literal", "cards": {"5555,5555,5555,4444": {"ssn 219.09.9999": true}}, "__proto__": {"AB-12-34-56-C": 1}}',
    );
    const out = redactDeep(toolResult) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['[card ••••4242]', '[card ••••4242] (2)', '[card ••••4242] (3)', 'cards', '__proto__']);
    assert.deepEqual(Object.values(out).slice(0, 3), ['primary', 'backup', 'literal']);
    assert.deepEqual(out.cards, { '[card ••••4444]': { 'ssn [redacted ssn]': true } });
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(JSON.parse(JSON.stringify(out)).__proto__, { '[redacted nino]': 1 });
    assert.doesNotMatch(JSON.stringify(out), /4242 4242|5555,5555|219\.09|AB-12/);
  });

  it('redacts the values a tool result echoes, whatever their separators or invisible characters (issue 28 #6)', () => {
    const out = redactDeep({ paid_with: '4242\u3164 4242\u3164 4242\u3164 4242', refund_to: 'DE89/3704/0044/0532/0130/00', holder_ssn: '078–05–1120', notes: ['card 4242 -- 4242 -- 4242 -- 4242'] });
    assert.deepEqual(out, { paid_with: '[card ••••4242]', refund_to: '[redacted iban]', holder_ssn: '[redacted ssn]', notes: ['card [card ••••4242]'] });
  });

  it('redacts every string of a nested value, keeps ordinary keys and numbers, and copies', () => {
    const input = {
      customer: { note: 'card 4242 4242 4242 4242', ids: ['ssn 123-45-6789', 'plain'] },
      amount: 129.99,
      created_ms: 1732147200000,
      order_number: 1234567812345678,
      card_as_number: 4242424242424242,
      flag: true,
      none: null,
      at: new Date(0),
    };
    const out = redactDeep(input);
    assert.deepEqual(out, {
      customer: { note: 'card [card ••••4242]', ids: ['ssn [redacted ssn]', 'plain'] },
      amount: 129.99,
      created_ms: 1732147200000,
      order_number: 1234567812345678,
      card_as_number: '[card ••••4242]',
      flag: true,
      none: null,
      at: new Date(0),
    });
    assert.equal(input.customer.note, 'card 4242 4242 4242 4242', 'input not mutated');
    assert.equal(redactDeep('GB82WEST12345698765432'), '[redacted iban]');
    assert.equal(redactDeep(42), 42);
  });

  it('survives cycles', () => {
    const a: Record<string, unknown> = { s: 'AB123456C' };
    a.self = a;
    const out = redactDeep(a) as Record<string, unknown>;
    assert.equal(out.s, '[redacted nino]');
    assert.equal(out.self, out);
  });
});

describe('redaction cost', () => {
  it('handles 200 kB adversarial strings in bounded time', () => {
    const inputs = [
      '4'.repeat(200_000),
      '4 '.repeat(100_000),
      '4-'.repeat(100_000),
      '4242 4242 4242 4242 '.repeat(10_000),
      '123-45-'.repeat(30_000),
      'DE89'.repeat(50_000),
      'DE89 '.repeat(40_000),
      'AB12 '.repeat(40_000),
      'ssn 1 '.repeat(33_000),
      'passport number number number '.repeat(6_500),
      `${'1.'.repeat(100_000)}`,
      `${'a1'.repeat(100_000)}`,
      '4242\u200b'.repeat(40_000),
      '4242\u00a0\u00a0'.repeat(33_000),
      '4242..'.repeat(33_000),
      '４２４２ '.repeat(40_000),
    ];
    // Issue 28 #6: the wider separator rule and the default-ignorable removal stay linear.
    inputs.push(
      '4 -- '.repeat(20_000),
      '4,4*4/4_4.4-4 '.repeat(7_000),
      '4242 -- 4242 -- '.repeat(6_000),
      '1.2,3/4*5_6-7 8\n9'.repeat(5_500),
      '219.09.'.repeat(14_000),
      'AB-12-34-56-'.repeat(8_000),
      'ab.12.'.repeat(16_000),
      'DE89/'.repeat(20_000),
      'DE89 / 3704 / '.repeat(7_000),
      'passport 12 34 '.repeat(6_500),
      'dni 1-2-3-4-5-6-7-8 '.repeat(5_000),
      '4\u3164'.repeat(50_000),
      '4\u{e0020}'.repeat(33_000),
      '4\ufe0f\u034f'.repeat(33_000),
    );
    for (const input of inputs) {
      const started = performance.now();
      redactText(input);
      const ms = performance.now() - started;
      // Generous: a backtracking pattern takes minutes on these inputs, a linear scan milliseconds.
      assert.ok(ms < 5000, `${input.slice(0, 12)}… took ${ms.toFixed(0)} ms`);
    }
  });

  it('redacts 10,000 object keys that all redact to the same placeholder in bounded time (issue 28 #6)', () => {
    // 22 separators in each of the three places between the groups: 10,648 ways to write one card.
    const seps = [' ', '-', '.', ',', '/', '_', '*', '\n', '\t', '\u2013', '\u2014', '\u2212', ' -- ', ' / ', ', ', ' * ', ' - ', '  ', '\u00a0', '\u3164', ' \u200b', '\ufe0f'];
    const keys: Record<string, number> = {};
    for (let i = 0; i < 10_000; i++) {
      const [a, b, c] = [i % 22, Math.floor(i / 22) % 22, Math.floor(i / 484)].map((k) => seps[k]!);
      keys[`4242${a}4242${b}4242${c}4242`] = i;
    }
    const started = performance.now();
    const out = redactDeep(keys);
    const ms = performance.now() - started;
    assert.equal(Object.keys(out).length, 10_000, 'no entry lost');
    assert.ok(ms < 5000, `took ${ms.toFixed(0)} ms`);
  });
});
