/**
 * The detectors behind redaction.ts: one scan per kind of sensitive value (card numbers and SSNs in digit
 * runs, IBANs, UK National Insurance numbers, passports and national ids after a keyword), each reading the
 * normalised text and pushing the spans it finds. Every detector splits a value into groups by the same
 * separator rule (`separatorAt`). What each matches, and why, is written in redaction.ts.
 */

export type RedactionKind = 'card_number' | 'us_ssn' | 'iban' | 'uk_nino' | 'passport' | 'national_id';

const PLACEHOLDER: Record<Exclude<RedactionKind, 'card_number'>, string> = {
  us_ssn: '[redacted ssn]',
  iban: '[redacted iban]',
  uk_nino: '[redacted nino]',
  passport: '[redacted passport]',
  national_id: '[redacted national id]',
};

export const cardPlaceholder = (digits: string): string => `[card ••••${digits.slice(-4)}]`;

export interface Span {
  start: number;
  end: number;
  kind: RedactionKind;
  replacement: string;
}

const isDigitCode = (c: number) => c >= 48 && c <= 57;
const isAsciiAlnumCode = (c: number) => isDigitCode(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/**
 * Letters and digits glue a match to its neighbour, except letters of scripts written without spaces
 * between words (Han, kana, Thai…), where a number sits right next to the text around it.
 */
const WORD_CHAR = /[\p{L}\p{N}_]/u;
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc]/u;

/** True when the character at `i` would glue a match to a neighbouring word (out of range: false). */
function isWordCharAt(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const c = text.charCodeAt(i);
  if (c < 128) return isAsciiAlnumCode(c) || c === 95;
  const ch = text[i]!;
  return WORD_CHAR.test(ch) && !UNSPACED_SCRIPT.test(ch);
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function ssnValid(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}

// ---- the one separator rule ------------------------------------------------------------------------

/**
 * The characters that may split the groups of any value (a card's, an SSN's, an IBAN's, a NINO's, an id's
 * after a keyword): whitespace (line breaks and tabs included), dashes (ASCII, Unicode and the minus sign),
 * dots, commas, slashes, underscores and asterisks. Written once, read by every scan through `separatorAt`.
 */
const SEPARATOR_CHAR = /^[\s\-\u2010-\u2015\u2212.,/_*]$/u;
/** A separator is 1 to MAX_SEPARATOR of those characters in a row ("4242 -- 4242" is four). */
const MAX_SEPARATOR = 4;

const ASCII_SEPARATOR = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_SEPARATOR[c] = SEPARATOR_CHAR.test(String.fromCharCode(c)) ? 1 : 0;

const isSeparatorCode = (c: number) => (c < 128 ? ASCII_SEPARATOR[c] === 1 : SEPARATOR_CHAR.test(String.fromCharCode(c)));

/**
 * Length of the separator at `j`: 1 to MAX_SEPARATOR separator characters followed by a character that
 * `groupStarts` accepts (a digit, by default), or 0. Bounded look-ahead, so every scan stays linear.
 */
function separatorAt(text: string, j: number, groupStarts: (c: number) => boolean = isDigitCode): number {
  let k = j;
  while (k < text.length && k - j < MAX_SEPARATOR && isSeparatorCode(text.charCodeAt(k))) k++;
  return k > j && groupStarts(text.charCodeAt(k)) ? k - j : 0;
}

// ---- digit runs: cards and formatted SSNs ------------------------------------------------------------

interface Group {
  start: number;
  end: number;
  /** The separator before this group: a single space or dash (`simple`), or any other (`wide`). */
  sep: 'none' | 'simple' | 'wide';
}

/**
 * Groups joined by anything but one space or dash ("4242.4242.4242.4242", "4242,4242…", double spaces,
 * line breaks) count as a card only when they look like a card written out: a first group of 4 digits
 * starting as a card network's numbers do (3–6, or 22–27), then groups of 3–8 digits. Dotted decimals,
 * dates, version numbers, lists of years ("1980, 1981-1983, 1984") and page ranges ("261, 15424-15429")
 * stay as they are.
 */
const WIDE_GROUP_MIN = 3;
const WIDE_GROUP_MAX = 8;
const WIDE_FIRST_GROUP = 4;

function cardLikeStart(text: string, at: number): boolean {
  const first = text.charCodeAt(at) - 48;
  const second = text.charCodeAt(at + 1) - 48;
  return (first >= 3 && first <= 6) || (first === 2 && second >= 2 && second <= 7);
}

function cardSpan(text: string, groups: Group[], from: number, to: number): Span | null {
  let count = 0;
  let wide = false;
  for (let g = from; g <= to && count <= 19; g++) {
    count += groups[g]!.end - groups[g]!.start;
    if (g > from && groups[g]!.sep === 'wide') wide = true;
  }
  if (count < 13 || count > 19) return null;
  if (wide) {
    if (groups[from]!.end - groups[from]!.start !== WIDE_FIRST_GROUP || !cardLikeStart(text, groups[from]!.start)) return null;
    for (let g = from; g <= to; g++) {
      const len = groups[g]!.end - groups[g]!.start;
      if (len < WIDE_GROUP_MIN || len > WIDE_GROUP_MAX) return null;
    }
  } else if (isDecimalPart(text, groups[from]!.start, groups[to]!.end)) return null;
  let digits = '';
  for (let g = from; g <= to; g++) digits += text.slice(groups[g]!.start, groups[g]!.end);
  if (!luhnValid(digits)) return null;
  return { start: groups[from]!.start, end: groups[to]!.end, kind: 'card_number', replacement: cardPlaceholder(digits) };
}

function classifyDigitRun(text: string, groups: Group[], out: Span[]): void {
  const last = groups.length - 1;
  const lengths = groups.map((g) => g.end - g.start);
  const total = lengths.reduce((a, b) => a + b, 0);
  if (groups.length === 3 && lengths[0] === 3 && lengths[1] === 2 && lengths[2] === 4) {
    // AAA-GG-SSSS: any separator of the rule ("219.09.9999", "078–05–1120", one per line), the same both times.
    const sep1 = text.slice(groups[0]!.end, groups[1]!.start);
    const sep2 = text.slice(groups[1]!.end, groups[2]!.start);
    const [a, g, s] = groups.map((x) => text.slice(x.start, x.end)) as [string, string, string];
    if (sep1 === sep2 && ssnValid(a, g, s)) {
      out.push({ start: groups[0]!.start, end: groups[2]!.end, kind: 'us_ssn', replacement: PLACEHOLDER.us_ssn });
      return;
    }
  }
  if (total < 13) return;
  // Whole groups, left to right, the longest Luhn-valid 13–19 digit window first: the run itself, or a
  // card typed next to other numbers ("4242 4242 4242 4242 12 25"), or several cards in a row.
  for (let from = 0; from <= last; ) {
    let to = from;
    let count = lengths[from]!;
    while (to < last && count + lengths[to + 1]! <= 19) count += lengths[++to]!;
    let found: Span | null = null;
    while (to >= from && !(found = cardSpan(text, groups, from, to))) to--;
    if (found) {
      out.push(found);
      from = to + 1;
    } else from++;
  }
}

/** `3.1415926535897932` or `1,234…`: the digits are part of a larger number, not an id of their own. */
function isDecimalPart(text: string, start: number, end: number): boolean {
  const before = text.charCodeAt(start - 1);
  const after = text.charCodeAt(end);
  return ((before === 46 || before === 44) && isDigitCode(text.charCodeAt(start - 2))) ||
    ((after === 46 || after === 44) && isDigitCode(text.charCodeAt(end + 1)));
}

export function scanDigitRuns(text: string, out: Span[]): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isDigitCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const groups: Group[] = [];
    let j = i;
    let sep: Group['sep'] = 'none';
    for (;;) {
      const start = j;
      while (j < n && isDigitCode(text.charCodeAt(j))) j++;
      groups.push({ start, end: j, sep });
      const len = separatorAt(text, j);
      if (len === 0) break;
      const c = text.charCodeAt(j);
      sep = len === 1 && (c === 32 || c === 45) ? 'simple' : 'wide';
      j += len;
    }
    if (!isWordCharAt(text, i - 1) && !isWordCharAt(text, j)) classifyDigitRun(text, groups, out);
    i = j;
  }
}

// ---- IBAN ------------------------------------------------------------------------------------------

/** Registered IBAN lengths (SWIFT IBAN registry). */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21,
  CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18,
  FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HN: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23,
  IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, LY: 25, MC: 27,
  MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18, NO: 15, OM: 23, PK: 24, PL: 28,
  PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27,
  SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
};

export function ibanChecksumValid(compact: string): boolean {
  const s = compact.slice(4) + compact.slice(0, 4);
  let rem = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigitCode(c)) rem = (rem * 10 + (c - 48)) % 97;
    else rem = (rem * 100 + (c - 55)) % 97; // A=10 … Z=35, always two digits
  }
  return rem === 1;
}

const IBAN_START = /(?<![\p{L}\p{N}_])[A-Za-z]{2}\d{2}/gu;

export function scanIbans(text: string, out: Span[]): void {
  IBAN_START.lastIndex = 0;
  for (let m = IBAN_START.exec(text); m; m = IBAN_START.exec(text)) {
    const start = m.index;
    const length = IBAN_LENGTHS[m[0].slice(0, 2).toUpperCase()];
    if (!length) continue;
    let compact = '';
    let j = start;
    while (compact.length < length && j < text.length) {
      if (isAsciiAlnumCode(text.charCodeAt(j))) {
        compact += text[j]!.toUpperCase();
        j++;
      } else if (compact.length % 4 === 0 && compact.length > 0 && separatorAt(text, j, isAsciiAlnumCode) > 0) {
        // Groups of four split by a separator of the rule ("DE89 3704…", "DE89/3704/…").
        j += separatorAt(text, j, isAsciiAlnumCode);
      } else break;
    }
    if (compact.length !== length || isWordCharAt(text, j) || !ibanChecksumValid(compact)) continue;
    out.push({ start, end: j, kind: 'iban', replacement: PLACEHOLDER.iban });
    IBAN_START.lastIndex = j;
  }
}

// ---- UK National Insurance number ---------------------------------------------------------------------

/** Letters that may open a NINO (not D F I Q U V) and follow the first (not D F I O Q U V), either case. */
const NINO_FIRST = new Uint8Array(128);
const NINO_SECOND = new Uint8Array(128);
for (const ch of 'ABCEGHJKLMNOPRSTWXYZ') NINO_FIRST[ch.charCodeAt(0)] = NINO_FIRST[ch.toLowerCase().charCodeAt(0)] = 1;
for (const ch of 'ABCEGHJKLMNPRSTWXYZ') NINO_SECOND[ch.charCodeAt(0)] = NINO_SECOND[ch.toLowerCase().charCodeAt(0)] = 1;
const NINO_UNUSED_PREFIXES = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);
/** The shortest NINO: two letters, six digits, one letter. */
const NINO_MIN_LENGTH = 9;
const isUpperCode = (c: number) => c >= 65 && c <= 90;

/**
 * The prefix, three pairs of digits and the suffix A–D, each optionally split from the next by a separator
 * of the rule ("AB 12 34 56 C", "AB-12-34-56-C", "AB.123456.C"). The letters share one case ("AB123456C",
 * "ab123456c"): "SW033291, a" is a drug code and an article. A character scan, not a pattern: a pattern
 * with the separator class at every step is ten times slower on ordinary text.
 */
export function scanNinos(text: string, out: Span[]): void {
  for (let i = 0; i + NINO_MIN_LENGTH <= text.length; i++) {
    const first = text.charCodeAt(i);
    const second = text.charCodeAt(i + 1);
    if (first >= 128 || second >= 128 || NINO_FIRST[first] !== 1 || NINO_SECOND[second] !== 1) continue;
    const third = text.charCodeAt(i + 2);
    if (!isDigitCode(third) && !isSeparatorCode(third)) continue;
    if (isWordCharAt(text, i - 1)) continue;
    let j = i + 2;
    let pairs = 0;
    for (; pairs < 3; pairs++) {
      j += separatorAt(text, j);
      if (!isDigitCode(text.charCodeAt(j)) || !isDigitCode(text.charCodeAt(j + 1))) break;
      j += 2;
    }
    if (pairs < 3) continue;
    const upper = isUpperCode(first);
    if (isUpperCode(second) !== upper) continue;
    if (NINO_UNUSED_PREFIXES.has(text.slice(i, i + 2).toUpperCase())) continue;
    const isSuffixCode = (c: number) => c >= (upper ? 65 : 97) && c <= (upper ? 68 : 100);
    j += separatorAt(text, j, isSuffixCode);
    if (!isSuffixCode(text.charCodeAt(j)) || isWordCharAt(text, j + 1)) continue;
    out.push({ start: i, end: j + 1, kind: 'uk_nino', replacement: PLACEHOLDER.uk_nino });
    i = j;
  }
}

// ---- keyword context: bare SSNs, passports, national ids ----------------------------------------------

const CONTEXT = new RegExp(
  [
    '(?<![\\p{L}\\p{N}_])(?:',
    '(?<ssn>ssn|social[ -]security)',
    "|(?<passport>passports?|passport-?nummer|reisepass(?:nummer)?|passeport|pasaporte)",
    "|(?<nie>nie)",
    "|(?<national>national[ -]id(?:entity)?|national[ -]identification|identity[ -]card|id[ -]card|identity[ -]number" +
      "|personalausweis(?:nummer)?|ausweis(?:nummer)?|dni|nif|carte d['’]identit[ée]|documento de identidad" +
      "|driver'?s[ -]licen[cs]e|driving[ -]licen[cs]e)",
    ')(?![\\p{L}\\p{N}_])',
  ].join(''),
  'giu',
);

const FILLERS = new Set([
  'number', 'numbers', 'no', 'nr', 'num', 'nummer', 'numero', 'número', 'n', 'nº', 'n°', 'is', 'was', 'are', 'ist',
  'lautet', 'es', 'est', 'my', 'mein', 'meine', 'mi', 'mon', 'ma', 'the', 'of', 'de', 'du', 'id', 'card', 'identity',
  'identification', 'details', 'a', 's',
]);

const ID_MAX_SCAN = 64;

const ID_SHAPE = /^[A-Za-z0-9]{6,12}$/;
const HAS_DIGIT = /\d/;
const isId = (compact: string) => ID_SHAPE.test(compact) && HAS_DIGIT.test(compact);

/** The end of the word (letters and digits) starting at `start`, at most 40 characters. */
function wordEnd(text: string, start: number): number {
  let p = start;
  while (p < text.length && p - start < 40 && isWordCharAt(text, p) && text[p] !== '_') p++;
  return p;
}

/**
 * Scans the words after a keyword; returns the first id-like token or null at the first non-filler. An id
 * may be written in groups split by separators of the rule ("12345678-Z", "X12 345 678"): a group joins
 * it when it holds a digit or is a single letter (a check letter), so the words after an id stay as they
 * are; the longest run of groups that still reads as an id (6–12 letters and digits, one a digit) wins.
 */
function findIdAfter(text: string, from: number): { start: number; end: number; token: string } | null {
  let p = from;
  const limit = Math.min(text.length, from + ID_MAX_SCAN);
  for (let words = 0; words < 6 && p < limit; words++) {
    while (p < limit && /[\s:#=.,()"'’«»°\-–—/]/u.test(text[p]!)) p++;
    if (p >= limit) return null;
    const start = p;
    p = wordEnd(text, start);
    if (p === start) return null;
    const word = text.slice(start, p);
    if (FILLERS.has(word.toLowerCase())) continue;
    let found: { start: number; end: number; token: string } | null = null;
    let compact = word;
    for (let end = p; ; ) {
      if (isId(compact)) found = { start, end, token: compact };
      const sep = compact.length < 12 ? separatorAt(text, end, isAsciiAlnumCode) : 0;
      if (sep === 0) break;
      const next = wordEnd(text, end + sep);
      const group = text.slice(end + sep, next);
      if (!HAS_DIGIT.test(group) && group.length !== 1) break;
      compact += group;
      end = next;
    }
    return found;
  }
  return null;
}

export function scanContextIds(text: string, out: Span[]): void {
  CONTEXT.lastIndex = 0;
  for (let m = CONTEXT.exec(text); m; m = CONTEXT.exec(text)) {
    const id = findIdAfter(text, m.index + m[0].length);
    if (!id) continue;
    const g = m.groups!;
    let kind: RedactionKind | null = null;
    if (g.ssn) {
      if (/^\d{9}$/.test(id.token) && ssnValid(id.token.slice(0, 3), id.token.slice(3, 5), id.token.slice(5))) kind = 'us_ssn';
    } else if (g.passport) kind = 'passport';
    else if (g.nie) kind = /^[XYZ]\d{7}[A-Z]$/i.test(id.token) ? 'national_id' : null; // "nie" is also a German word
    else kind = 'national_id';
    if (!kind) continue;
    out.push({ start: id.start, end: id.end, kind, replacement: PLACEHOLDER[kind as Exclude<RedactionKind, 'card_number'>] });
    CONTEXT.lastIndex = id.end;
  }
}

/**
 * Where each keyword that makes an id redactable (passport, national id, ssn…) ends in `text`: a stream of
 * text holds back what follows one while an id could still come (redaction-stream.ts).
 */
export function contextKeywordEnds(text: string): number[] {
  const ends: number[] = [];
  CONTEXT.lastIndex = 0;
  for (let m = CONTEXT.exec(text); m; m = CONTEXT.exec(text)) ends.push(m.index + m[0].length);
  return ends;
}
