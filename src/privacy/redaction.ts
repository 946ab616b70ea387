/**
 * Data redaction (SPEC "What the service does" 6, DESIGN §4): card numbers, US SSNs, IBANs, UK National
 * Insurance numbers, passports and national ids are replaced before text reaches transcripts, logs,
 * replies, webhook payloads or Temporal history.
 *
 * Before matching, the text is normalised (NFKC: fullwidth digits and letters become ASCII, NBSP and the
 * other Unicode spaces become a space) and invisible characters (zero-width space and joiners, word joiner,
 * BOM, soft hyphen, bidi marks) are removed; the text outside a match is kept exactly as written.
 *
 * What is matched
 * - `card_number`: 13–19 digits, Luhn-valid only (so order numbers survive), in groups split by a
 *   separator of 1–3 characters among spaces, line breaks, tabs, dashes, dots, `/` and `_`. Groups split
 *   by one space or dash may have any length; any other separator ("4242.4242.4242.4242", double spaces,
 *   a card over several lines) needs card-like groups of 3–8 digits, which spares decimals, dates and
 *   version numbers. A run of more than 19 digits without separators is an id, not a card; a longer run
 *   with separators is cut on its groups, left to right, taking the longest Luhn-valid 13–19 digit window
 *   (a card typed with its expiry, "4242 4242 4242 4242 12 25", or two cards in a row).
 * - `us_ssn`: AAA-GG-SSSS (dashes or single spaces, the same both times) outside the never-issued ranges
 *   (area 000, 666, 900–999; group 00; serial 0000); 9 bare digits only after "ssn"/"social security".
 * - `iban`: country code + 2 check digits + BBAN of the country's registered length, any case, compact or
 *   in groups of 4 separated by one or two spaces, dashes, dots or line breaks, mod-97 valid. Countries
 *   not in the registry table are not matched.
 * - `uk_nino`: two prefix letters (first not D F I Q U V, second not D F I O Q U V, and not BG GB KN NK NT
 *   TN ZZ), six digits (optionally paired with single spaces) and suffix A–D.
 * - `passport` / `national_id`: after a keyword (passport, reisepass, passeport, pasaporte; national id,
 *   identity card, personalausweis, DNI, NIE, NIF, carte d'identité, driver's licence…) and at most a few
 *   filler words ("number", "no.", "is"…), an id of 6–12 letters/digits holding at least one digit.
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
 * Zero-width and invisible formatting characters that can sit between digits without showing: zero-width
 * space/joiners, word joiner, invisible operators, BOM, soft hyphen, Mongolian vowel separator, and the
 * bidirectional marks and embeddings.
 */
const INVISIBLE = /^[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]$/u;

/**
 * The text the detectors read: NFKC (fullwidth digits and letters become ASCII, NBSP and the other Unicode
 * spaces become a space) with invisible characters removed, character by character so every position maps
 * back to the original: `from[i]`/`to[i]` are the original range of the normalised code unit `i`.
 * ASCII-only text is its own normalisation (no map).
 */
interface Normalised {
  text: string;
  from?: number[];
  to?: number[];
}

function normaliseForMatching(text: string): Normalised {
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
 * A copy of a JSON-like value with every string redacted (object keys are kept). Numbers are kept too,
 * except integers that could be a card number typed as a JSON number: 13–16 digits (larger ones cannot be
 * exact in a double), a leading 2–6 (the card networks' IIN ranges, which also spares millisecond and
 * microsecond timestamps, starting with 1) and Luhn-valid. Those become the card placeholder *string*, so
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
  for (const [k, v] of Object.entries(value)) out[k] = walk(v, seen);
  return out;
}

function redactNumber(n: number): number | string {
  if (!Number.isSafeInteger(n) || n < 1e12) return n;
  const digits = String(n);
  if (digits.length < 13 || digits.length > 16 || digits[0]! < '2' || digits[0]! > '6') return n;
  return luhnValid(digits) ? cardPlaceholder(digits) : n;
}
