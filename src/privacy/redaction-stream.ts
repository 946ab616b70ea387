import { contextKeywordEnds } from './redaction-detectors';
import { findSensitiveValues, normaliseForMatching } from './redaction';

/**
 * Redaction of text that arrives in pieces (a reply streamed token by token): `push` answers the part
 * that can be sent now, already redacted, and `end` the rest, so that everything sent equals
 * `redactText(whole).text` exactly, and no piece of a card number, IBAN or id ever leaves before the
 * characters that decide whether it is one have arrived.
 *
 * What is held back (redaction is deterministic; every kind needs a digit):
 * - the last TAIL characters (an IBAN's country letters, a NINO's prefix and separator, before any digit);
 * - a digit cluster that may still grow (fewer than GAP characters after its last digit; no separator is
 *   longer than 4, so GAP non-digits end a chain), from LEAD characters before its first digit; such a
 *   cluster's meaning depends on how it ends (a 20th digit, a letter glued to it), so it is held whole;
 * - an IBAN start (two letters, two digits) within the longest IBAN with separators of its end;
 * - after a keyword (passport, national id, ssn…), everything while an id could still follow it.
 * A value found that reaches past the cut moves the cut before it. Characters are counted without the
 * default-ignorable ones (they vanish before matching), so invisible characters cannot stretch a value
 * past a bound. Each push rescans a bounded window (CONTEXT characters before the first unsent one, from
 * the start of a GAP of non-digits, so no chain is cut); when a window or the held text would exceed
 * MAX_WINDOW (a reply of endless digits and separators), nothing more is sent until `end`.
 */
export class RedactionStream {
  private text = '';
  /** Characters of `text` whose redacted form has been sent. */
  private sent = 0;
  private stopped = false;

  push(piece: string): string {
    this.text += piece;
    if (this.stopped) return '';
    const cut = this.safeCut();
    if (cut === undefined) {
      this.stopped = true;
      return '';
    }
    return cut > this.sent ? this.emit(cut, false) : '';
  }

  /** The rest, redacted: the text is complete. */
  end(): string {
    const out = this.emit(this.text.length, true);
    this.stopped = true;
    return out;
  }

  /** Redacted text for [sent, cut); the cut moves before a value that reaches past it. */
  private emit(cut: number, final: boolean): string {
    const start = windowStart(this.text, this.sent, final ? Infinity : MAX_WINDOW);
    if (start === undefined) {
      this.stopped = true;
      return '';
    }
    const found = findSensitiveValues(this.text.slice(start)).map((m) => ({ ...m, start: m.start + start, end: m.end + start }));
    let to = cut;
    for (const m of found) if (m.start < to && m.end > to) to = m.start;
    let out = '';
    let at = this.sent;
    for (const m of found) {
      if (m.end <= this.sent || m.start >= to) continue;
      if (m.start < this.sent) {
        // A value reaching back into sent text: cannot happen by the rules above; send nothing more.
        this.stopped = true;
        return '';
      }
      out += this.text.slice(at, m.start) + m.replacement;
      at = m.end;
    }
    out += this.text.slice(at, to);
    this.sent = to;
    return out;
  }

  /** Where the sendable part ends now; undefined when holding would exceed MAX_WINDOW. */
  private safeCut(): number | undefined {
    const text = this.text;
    const L = text.length;
    let cut = back(text, L, TAIL);
    // The last cluster of digits, if it may still grow.
    const lastDigit = lastDigitBefore(text, L, GAP);
    if (lastDigit !== undefined) {
      const clusterStart = clusterStartOf(text, lastDigit, MAX_WINDOW);
      if (clusterStart === undefined) return undefined;
      cut = Math.min(cut, back(text, clusterStart, LEAD));
    }
    // An IBAN start or a keyword in the recent text (normalised: fullwidth letters, invisible characters).
    const tailStart = back(text, L, RECENT);
    const tail = normaliseForMatching(text.slice(tailStart));
    const toOriginal = (i: number) => tailStart + (tail.from ? (i < tail.from.length ? tail.from[i]! : text.length - tailStart) : i);
    IBAN_START.lastIndex = 0;
    for (let m = IBAN_START.exec(tail.text); m; m = IBAN_START.exec(tail.text)) {
      if (tail.text.length - m.index <= IBAN_SPAN) {
        cut = Math.min(cut, toOriginal(m.index));
        break;
      }
    }
    // The earliest keyword an id may still follow (an id may start with words: "passport 44ok" after "passport").
    const keywordEnd = contextKeywordEnds(tail.text).find((end) => tail.text.length - end <= ID_SPAN);
    if (keywordEnd !== undefined) cut = Math.min(cut, toOriginal(keywordEnd));
    return L - cut > MAX_WINDOW ? undefined : cut;
  }
}

/** Characters always held at the end: a NINO's "AB " or an IBAN's "DE" before their first digit. */
const TAIL = 8;
/** Non-digits in a row that end a chain of digits (a separator is at most 4 characters). */
const GAP = 6;
/** Letters a value may have before its first digit (NINO prefix and separator, IBAN country). */
const LEAD = 8;
/** The longest IBAN with separators (34 characters, 8 separators of up to 4), plus its look-ahead. */
const IBAN_SPAN = 72;
/** How far after its keyword an id may still end (6 words within 64 characters, then its groups). */
const ID_SPAN = 140;
/** The recent text searched for IBAN starts and keywords. */
const RECENT = 200;
/** Context scanned before the first unsent character (a keyword before an id; the longest bounded value). */
const CONTEXT = 256;
/** Beyond this much held or rescanned text, a stream sends nothing more until its end. */
const MAX_WINDOW = 4096;

const IBAN_START = /(?<![\p{L}\p{N}_])[A-Za-z]{2}\d{2}/gu;
const INVISIBLE = /^\p{Default_Ignorable_Code_Point}$/u;
const NFKC_DIGIT = /\d/;

type Kind = 'ignorable' | 'digit' | 'other';

function kindOf(ch: string): Kind {
  const c = ch.charCodeAt(0);
  if (c < 128) return c >= 48 && c <= 57 ? 'digit' : 'other';
  if (INVISIBLE.test(ch)) return 'ignorable';
  const n = ch.normalize('NFKC');
  if (n === '') return 'ignorable';
  return NFKC_DIGIT.test(n) ? 'digit' : 'other';
}

/** The code point ending at `i` (exclusive): its start. */
function prevStart(text: string, i: number): number {
  const lo = text.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = text.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return i - 2;
  }
  return i - 1;
}

/** The position `n` visible (not ignorable) code points before `from` (0 when there are fewer). */
function back(text: string, from: number, n: number): number {
  let i = from;
  let seen = 0;
  while (i > 0 && seen < n) {
    const s = prevStart(text, i);
    if (kindOf(text.slice(s, i)) !== 'ignorable') seen++;
    i = s;
  }
  return i;
}

/** The start of the last digit before `end` if fewer than `within` visible non-digits follow it. */
function lastDigitBefore(text: string, end: number, within: number): number | undefined {
  let i = end;
  let others = 0;
  while (i > 0 && others < within) {
    const s = prevStart(text, i);
    const k = kindOf(text.slice(s, i));
    if (k === 'digit') return s;
    if (k === 'other') others++;
    i = s;
  }
  return undefined;
}

/** The first digit of the cluster holding the digit at `at` (GAP non-digits end a cluster); undefined past `limit`. */
function clusterStartOf(text: string, at: number, limit: number): number | undefined {
  let first = at;
  let i = at;
  let others = 0;
  while (i > 0) {
    const s = prevStart(text, i);
    const k = kindOf(text.slice(s, i));
    if (k === 'digit') {
      first = s;
      others = 0;
    } else if (k === 'other' && ++others >= GAP) break;
    i = s;
    if (at - i > limit) return undefined;
  }
  return first;
}

/**
 * Where to start scanning for values at or after `from`: CONTEXT visible characters before it, then on to
 * the start of a run of GAP non-digits (so no chain of digits is cut); undefined past `limit` characters.
 */
function windowStart(text: string, from: number, limit: number): number | undefined {
  let i = back(text, from, CONTEXT);
  let others = 0;
  while (i > 0) {
    const s = prevStart(text, i);
    const k = kindOf(text.slice(s, i));
    if (k === 'digit') others = 0;
    else if (k === 'other' && ++others >= GAP) return s;
    i = s;
    if (from - i > limit) return undefined;
  }
  return 0;
}
