/**
 * Data redaction (SPEC "What the service does" 6, DESIGN §4): card numbers, US SSNs, IBANs, UK National
 * Insurance numbers, passports and national ids are replaced before text reaches transcripts, logs,
 * replies, webhook payloads or Temporal history.
 *
 * Before matching, the text is normalised (NFKC: fullwidth digits and letters become ASCII, NBSP and the
 * other Unicode spaces become a space) and every Default_Ignorable_Code_Point (the Unicode property: zero-width
 * space and joiners, word joiner, BOM, soft hyphen, bidi marks, variation selectors, the combining grapheme
 * joiner, tags, the Hangul fillers…) is removed; the text outside a match is kept exactly as written.
 *
 * One separator rule for every detector: the groups of a value may be split by 1–4 characters among
 * whitespace (line breaks and tabs included), dashes (ASCII, Unicode, the minus sign), dots, commas,
 * slashes, underscores and asterisks ("4242 -- 4242 -- 4242 -- 4242", "219.09.9999", "DE89/3704/…",
 * "AB-12-34-56-C"). Each detector then asks what its kind needs of the groups.
 *
 * What is matched
 * - `card_number`: 13–19 digits, Luhn-valid only (so order numbers survive), in groups split by
 *   separators of the rule. Groups split by one space or dash may have any length; any other separator
 *   ("4242.4242.4242.4242", "4242,4242…", double spaces, a card over several lines) needs card-like groups
 *   of 3–8 digits, which spares decimals, dates and version numbers. A run of more than 19 digits without separators is an id, not a card; a longer run
 *   with separators is cut on its groups, left to right, taking the longest Luhn-valid 13–19 digit window
 *   (a card typed with its expiry, "4242 4242 4242 4242 12 25", or two cards in a row).
 * - `us_ssn`: AAA-GG-SSSS (any separator of the rule, the same both times: "078–05–1120", "219.09.9999",
 *   one group per line) outside the never-issued ranges (area 000, 666, 900–999; group 00; serial 0000);
 *   9 bare digits only after "ssn"/"social security".
 * - `iban`: country code + 2 check digits + BBAN of the country's registered length, any case, compact or
 *   in groups of 4 split by separators of the rule, mod-97 valid. Countries not in the registry table are
 *   not matched.
 * - `uk_nino`: two prefix letters (first not D F I Q U V, second not D F I O Q U V, and not BG GB KN NK NT
 *   TN ZZ), six digits and suffix A–D, the prefix, the pairs of digits and the suffix each optionally split
 *   by a separator of the rule ("AB 12 34 56 C", "AB-12-34-56-C", "AB.123456.C").
 * - `passport` / `national_id`: after a keyword (passport, reisepass, passeport, pasaporte; national id,
 *   identity card, personalausweis, DNI, NIE, NIF, carte d'identité, driver's licence…) and at most a few
 *   filler words ("number", "no.", "is"…), an id of 6–12 letters/digits holding at least one digit, whose
 *   groups may be split by separators of the rule ("12345678-Z", "X12 345 678").
 * Every match needs a non-alphanumeric character (or the text edge) on both sides; letters of scripts
 * written without spaces (Han, kana, Thai…) do not count as alphanumeric there.
 *
 * Placeholders: cards keep their last four digits, `[card ••••4242]`, as Stripe's `last4` and PCI DSS
 * allow, so a customer and an agent can still tell cards apart; everything else becomes `[redacted ssn]`,
 * `[redacted iban]`, `[redacted nino]`, `[redacted passport]`, `[redacted national id]`. "•" is not in
 * GSM-7: SMS shaping should map it to "*" if a redacted card can reach an SMS reply.
 *
 * Cost: every detector is a single left-to-right scan or a regex whose repetitions are bounded, so time is
 * linear in the text (a 200 kB adversarial string takes well under a second). ASCII text without a digit
 * is returned at once: every kind needs one. Fullwidth digits are recognised (NFKC); other digits
 * (Arabic-Indic, Devanagari) are not.
 *
 * False positives are measured by `npm run bench:redaction` on the SciFact abstracts and the FAQ texts.
 */

import {
  cardPlaceholder,
  luhnValid,
  scanContextIds,
  scanDigitRuns,
  scanIbans,
  scanNinos,
  type RedactionKind,
  type Span,
} from './redaction-detectors';

export { cardPlaceholder, ibanChecksumValid, luhnValid, type RedactionKind } from './redaction-detectors';

export interface RedactionFinding {
  kind: RedactionKind;
  count: number;
}

export interface RedactTextResult {
  text: string;
  findings: RedactionFinding[];
}

const KINDS: RedactionKind[] = ['card_number', 'us_ssn', 'iban', 'uk_nino', 'passport', 'national_id'];

// ---- assembly --------------------------------------------------------------------------------------

const HAS_DIGIT = /\d/;
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * Characters that can sit between digits without showing: the Unicode property Default_Ignorable_Code_Point
 * as a whole (zero-width space and joiners, word joiner, invisible operators, BOM, soft hyphen, bidi marks,
 * variation selectors, the combining grapheme joiner, the Arabic letter mark, tags, Hangul fillers…), not
 * a hand-picked list that the next invisible character slips past.
 */
const INVISIBLE = /^\p{Default_Ignorable_Code_Point}$/u;

/**
 * The text the detectors read: NFKC (fullwidth digits and letters become ASCII, NBSP and the other Unicode
 * spaces become a space) with default-ignorable characters removed, character by character so every position maps
 * back to the original: `from[i]`/`to[i]` are the original range of the normalised code unit `i`.
 * ASCII-only text is its own normalisation (no map).
 */
export interface Normalised {
  text: string;
  from?: number[];
  to?: number[];
}

export function normaliseForMatching(text: string): Normalised {
  if (!NON_ASCII.test(text)) return { text };
  let out = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const ch = text.slice(i, i + width);
    const mapped = cp < 128 ? ch : INVISIBLE.test(ch) ? '' : ch.normalize('NFKC');
    for (let k = 0; k < mapped.length; k++) {
      from.push(i);
      to.push(i + width);
    }
    out += mapped;
    i += width;
  }
  return { text: out, from, to };
}

/** A sensitive value found in a text: its kind and its range in the text as written. */
export interface RedactionMatch {
  kind: RedactionKind;
  start: number;
  end: number;
  replacement: string;
}

/**
 * Finds every sensitive value in `text`, in order. Detection runs on the NFKC form without invisible
 * characters; the ranges are those of the original text.
 */
export function findSensitiveValues(text: string): RedactionMatch[] {
  if (!HAS_DIGIT.test(text) && !NON_ASCII.test(text)) return [];
  const norm = normaliseForMatching(text);
  const subject = norm.text;
  if (!HAS_DIGIT.test(subject)) return [];
  // Detectors run in priority order; a later span overlapping an earlier one is dropped.
  const taken = new Uint8Array(subject.length);
  const kept: Span[] = [];
  for (const detect of [scanIbans, scanDigitRuns, scanNinos, scanContextIds]) {
    const found: Span[] = [];
    detect(subject, found);
    for (const s of found) {
      let free = true;
      for (let k = s.start; k < s.end && free; k++) free = taken[k] === 0;
      if (!free) continue;
      taken.fill(1, s.start, s.end);
      kept.push(s);
    }
  }
  kept.sort((a, b) => a.start - b.start);
  return kept.map((s) => ({
    kind: s.kind,
    start: norm.from ? norm.from[s.start]! : s.start,
    end: norm.to ? norm.to[s.end - 1]! : s.end,
    replacement: s.replacement,
  }));
}

/** Replaces every sensitive value in `text`; `findings` counts them per kind (kinds with no match omitted). */
export function redactText(text: string): RedactTextResult {
  const found = findSensitiveValues(text);
  if (found.length === 0) return { text, findings: [] };
  const counts = new Map<RedactionKind, number>();
  let result = '';
  let at = 0;
  for (const s of found) {
    result += text.slice(at, s.start) + s.replacement;
    at = s.end;
    counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
  }
  result += text.slice(at);
  return { text: result, findings: KINDS.filter((k) => counts.has(k)).map((kind) => ({ kind, count: counts.get(kind)! })) };
}

/**
 * A copy of a JSON-like value with every string redacted, object keys included (a key is text a customer or
 * a tool wrote as much as a value is; when two keys redact alike the later one gets " (2)", " (3)"…, so no
 * entry is lost). Numbers are kept too, except integers that could be a card number typed as a JSON number:
 * 13–16 digits (larger ones cannot be exact in a double), a leading 2–6 (the card networks' IIN ranges,
 * which also spares millisecond and microsecond timestamps, starting with 1) and Luhn-valid. Those become the card placeholder *string*, so
 * the result can differ from `T` in that one respect. Other objects (Date, Buffer, class instances) are
 * returned as they are; cycles are preserved rather than followed forever.
 */
export function redactDeep<T>(value: T): T {
  return walk(value, new WeakMap()) as T;
}

function walk(value: unknown, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return redactText(value).text;
  if (typeof value === 'number') return redactNumber(value);
  if (value === null || typeof value !== 'object') return value;
  const prior = seen.get(value);
  if (prior !== undefined) return prior;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(walk(item, seen));
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  const suffixes = new Map<string, number>();
  for (const [k, v] of Object.entries(value)) {
    const key = freeKey(out, redactText(k).text, suffixes);
    // Defined, not assigned: a "__proto__" key stays an entry instead of replacing the copy's prototype.
    Object.defineProperty(out, key, { value: walk(v, seen), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * `key`, or when `out` holds it already (two keys redacted alike), `key (2)`, `key (3)`…: the next suffix
 * per key is remembered, so many colliding keys cost linear time.
 */
function freeKey(out: Record<string, unknown>, key: string, suffixes: Map<string, number>): string {
  if (!Object.hasOwn(out, key)) return key;
  let n = suffixes.get(key) ?? 2;
  while (Object.hasOwn(out, `${key} (${n})`)) n++;
  suffixes.set(key, n + 1);
  return `${key} (${n})`;
}

function redactNumber(n: number): number | string {
  if (!Number.isSafeInteger(n) || n < 1e12) return n;
  const digits = String(n);
  if (digits.length < 13 || digits.length > 16 || digits[0]! < '2' || digits[0]! > '6') return n;
  return luhnValid(digits) ? cardPlaceholder(digits) : n;
}
