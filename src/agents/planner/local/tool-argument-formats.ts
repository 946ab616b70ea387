/** Values of JSON Schema `format`s found in free text (dates in en/de/fr/es wording, emails, URIs, …). */

export type Span = [start: number, end: number];

export const overlaps = (spans: Span[], s: Span) => spans.some(([a, b]) => s[0] < b && a < s[1]);

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const URI = /\bhttps?:\/\/[^\s<>"'“”]+/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const DATE_TIME = /(?<!\d)(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?(?!\d)/g;
const TIME = /(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\d:])/g;

const MONTH_NAMES: Array<[number, string]> = [
  [1, 'january jan januar janvier enero ene'], [2, 'february feb februar fevrier febrero'],
  [3, 'march mar marz mars marzo'], [4, 'april apr avril abril abr'], [5, 'may mai mayo'],
  [6, 'june jun juni juin junio'], [7, 'july jul juli juillet julio'], [8, 'august aug aout agosto ago'],
  [9, 'september sep sept septembre septiembre setiembre'], [10, 'october oct oktober okt octobre octubre'],
  [11, 'november nov novembre noviembre'], [12, 'december dec dezember dez decembre diciembre dic'],
];
const MONTHS = new Map<string, number>(MONTH_NAMES.flatMap(([n, names]) => names.split(' ').map((w) => [w, n] as [string, number])));

const pad = (n: number) => String(n).padStart(2, '0');

function isoDate(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || y < 1000) return undefined;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days ? `${y}-${pad(m)}-${pad(d)}` : undefined;
}

/** Month first for a/b/yyyy in the US (and when the locale is unknown), day first elsewhere. */
const monthFirst = (locale: string | null) => locale === null || /^en[-_]us$/i.test(locale);

/**
 * The first date in the text as YYYY-MM-DD: ISO, yyyy/mm/dd, dd.mm.yyyy, a/b/yyyy (order by locale,
 * unless one part exceeds 12), or with a month name ("March 3, 2025", "3. März 2025", "3 de marzo de
 * 2025"). Dates without a year are not read (there is no clock here to resolve them).
 */
export function extractDate(folded: string, locale: string | null, free: (s: Span) => boolean): { value: string; span: Span } | undefined {
  const found: Array<{ value: string; span: Span }> = [];
  const add = (m: RegExpMatchArray, value: string | undefined) => {
    const span: Span = [m.index!, m.index! + m[0].length];
    if (value && free(span)) found.push({ value, span });
  };
  for (const m of folded.matchAll(/(?<!\d)(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)/g)) add(m, isoDate(+m[1]!, +m[2]!, +m[3]!));
  for (const m of folded.matchAll(/(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d)/g)) add(m, isoDate(+m[3]!, +m[2]!, +m[1]!));
  for (const m of folded.matchAll(/(?<![\d/-])(\d{1,2})[/-](\d{1,2})[/-](\d{4})(?!\d)/g)) {
    const a = +m[1]!;
    const b = +m[2]!;
    const mf = a > 12 ? false : b > 12 ? true : monthFirst(locale);
    add(m, mf ? isoDate(+m[3]!, a, b) : isoDate(+m[3]!, b, a));
  }
  for (const m of folded.matchAll(/(?<!\d)(\d{1,2})(?:st|nd|rd|th|er|\.|º)?\s+(?:of\s+|de\s+)?(\p{L}{3,})\.?,?\s+(?:de\s+)?(\d{4})(?!\d)/gu)) {
    const month = MONTHS.get(m[2]!);
    if (month) add(m, isoDate(+m[3]!, month, +m[1]!));
  }
  for (const m of folded.matchAll(/(?<!\p{L})(\p{L}{3,})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)/gu)) {
    const month = MONTHS.get(m[1]!);
    if (month) add(m, isoDate(+m[3]!, month, +m[2]!));
  }
  return found.sort((x, y) => x.span[0] - y.span[0])[0];
}

/** The first value of `format` in the text (email, uri, uuid, date-time), or undefined. */
export function extractFormat(
  format: string,
  text: string,
  free: (s: Span) => boolean,
  ok: (value: string) => boolean,
): { value: string; span: Span } | undefined {
  const scan = (re: RegExp, map: (m: RegExpMatchArray) => string = (m) => m[0]) => {
    for (const m of text.matchAll(re)) {
      const value = map(m);
      const span: Span = [m.index!, m.index! + m[0].length];
      if (free(span) && ok(value)) return { value, span };
    }
    return undefined;
  };
  switch (format) {
    case 'email':
    case 'idn-email':
      return scan(EMAIL);
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      return scan(URI, (m) => m[0].replace(/[.,;:!?)\]]+$/, ''));
    case 'uuid':
      return scan(UUID, (m) => m[0].toLowerCase());
    case 'date-time':
      return scan(DATE_TIME, (m) => `${m[1]}T${m[2]}${m[3] ?? ':00'}${m[4] ? (m[4] === 'Z' ? 'Z' : m[4].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')) : ''}`);
    default:
      return undefined;
  }
}

/** Spans holding dates, times, emails, URLs and ids: their digits are not loose numbers. */
export function noiseSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const re of [EMAIL, URI, UUID, DATE_TIME, TIME, /(?<!\d)\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}(?!\d)/g, /\+\d[\d\s().-]{6,}\d/g]) {
    for (const m of text.matchAll(re)) spans.push([m.index!, m.index! + m[0].length]);
  }
  return spans;
}
