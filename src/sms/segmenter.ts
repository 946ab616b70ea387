/**
 * SMS segmentation (3GPP TS 23.038 / 23.040). A body that fits the GSM 03.38 default alphabet plus its
 * extension table is sent as GSM-7: 160 septets in one segment, 153 per segment once concatenated (the
 * UDH takes 7); an extension character costs two septets (ESC + char) and an escape pair is never split
 * across segments. Anything else is UCS-2: 70 UTF-16 code units in one segment, 67 per concatenated
 * segment; a surrogate pair (an emoji, for example) is never split. CR LF counts as two characters.
 * Pure: no I/O, used by the API (segments, price, limits) and by carriers (part bodies).
 */
export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SegmentedSms {
  encoding: SmsEncoding;
  /** Number of SMS segments (1 for an empty body). */
  segments: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) of the whole body. */
  units: number;
  /** The body cut into the text of each segment, in order. */
  parts: string[];
}

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

const basic = new Set([...GSM_BASIC].filter((c) => c !== '\u001b'));
const extension = new Set(GSM_EXTENSION);

export const GSM7_SINGLE = 160;
export const GSM7_CONCAT = 153;
export const UCS2_SINGLE = 70;
export const UCS2_CONCAT = 67;

/** Septets one character costs in GSM-7, or undefined when it is outside the alphabet. */
export function gsm7Septets(char: string): 1 | 2 | undefined {
  if (basic.has(char)) return 1;
  if (extension.has(char)) return 2;
  return undefined;
}

export function isGsm7(body: string): boolean {
  for (const c of body) if (gsm7Septets(c) === undefined) return false;
  return true;
}

/** Splits `units` (each an unbreakable character with its cost) into segments of at most `size`. */
function pack(chars: { text: string; cost: number }[], size: number): string[] {
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const c of chars) {
    if (used + c.cost > size) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += c.text;
    used += c.cost;
  }
  parts.push(current);
  return parts;
}

export function segmentSms(body: string): SegmentedSms {
  const gsm = isGsm7(body);
  // Iterating a string by code point keeps surrogate pairs together (cost 2 in UCS-2).
  const chars = [...body].map((text) => ({ text, cost: gsm ? gsm7Septets(text)! : text.length }));
  const units = chars.reduce((n, c) => n + c.cost, 0);
  const single = gsm ? GSM7_SINGLE : UCS2_SINGLE;
  const concat = gsm ? GSM7_CONCAT : UCS2_CONCAT;
  const parts = units <= single ? [body] : pack(chars, concat);
  return { encoding: gsm ? 'GSM-7' : 'UCS-2', segments: parts.length, units, parts };
}
