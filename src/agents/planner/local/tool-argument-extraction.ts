import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js';
import type { JsonSchema } from '../port';
import { extractDate, extractFormat, noiseSpans, overlaps, type Span } from './tool-argument-formats';
import { tenantPatternMatchAll, tenantPatternMatches } from '../../../platform/tenant-pattern';
import { canonicalTerm, foldSameLength, identifierWords, normalise, stem, STOP_WORDS, tokenSpans } from '../../../platform/text';

/**
 * Arguments of a tool call read from the customer's words by JSON Schema: enum values mentioned, `pattern`
 * matches, `format` (email, date, date-time, uri, uuid, phone), a value after the property's label
 * ("order 12345" for order_id), quoted strings, then conversation context keys named like the property,
 * then loose values (remaining numbers, yes/no, or the whole message when it answers our question).
 * Specific evidence wins over loose evidence; a span of text fills at most one property.
 */
export interface ExtractArgumentsInput {
  schema: JsonSchema;
  message: string;
  /** Earlier customer turns, most recent first (searched for specific evidence only). */
  earlier: string[];
  context: Record<string, unknown>;
  locale: string | null;
  /** The message answers a question we asked (so a short message may be the value itself). */
  answering: boolean;
}

export interface ExtractedArguments {
  arguments: Record<string, unknown>;
  /** Required properties without a value. */
  missing: string[];
}

type Prop = { name: string; schema: Record<string, unknown>; type: string };

const GENERIC_LABELS = new Set(['id', 'number', 'no', 'num', 'nr', 'code', 'ref', 'reference', 'value', 'key']);
const CONNECTORS = new Set([
  'id', 'number', 'no', 'num', 'nr', 'nummer', 'numero', 'code', 'ref', 'reference', 'is', 'was', 'ist', 'es',
  'est', 'of', 'my', 'the', 'mi', 'ma', 'mon', 'meine', 'meiner', 'de', 'la', 'le', 'el', 'lautet', 'be', 'should',
]);
const YES = new Set(['yes', 'yeah', 'yep', 'sure', 'ja', 'oui', 'si', 'true', 'y']);
const NO = new Set(['no', 'nope', 'nein', 'non', 'false', 'n']);
const PHONE_FORMATS = new Set(['phone', 'phone-number', 'tel', 'e164', 'phone_number']);

const typeOf = (schema: Record<string, unknown>): string => {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return (t.find((x) => x !== 'null') as string | undefined) ?? 'string';
  if (Array.isArray(schema.enum)) return typeof schema.enum[0] === 'number' ? 'number' : 'string';
  return 'string';
};

/** Whether `value` satisfies the simple constraints of `schema` (type, enum, length, range, pattern). */
export function acceptable(value: unknown, schema: Record<string, unknown>): boolean {
  const type = typeOf(schema);
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) return false;
  if (type === 'integer' && !(typeof value === 'number' && Number.isInteger(value))) return false;
  if (type === 'number' && !(typeof value === 'number' && Number.isFinite(value))) return false;
  if (type === 'boolean' && typeof value !== 'boolean') return false;
  if (type === 'string' && typeof value !== 'string') return false;
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return false;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return false;
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return false;
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return false;
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) return false;
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) return false;
    // The tenant's pattern runs on the linear-time engine only (src/platform/tenant-pattern.ts).
    if (typeof schema.pattern === 'string' && !tenantPatternMatches(schema.pattern, value)) return false;
  }
  return !['array', 'object', 'null'].includes(type);
}

/** Coerces a textual value to the property's type, or undefined. */
function coerce(raw: string, prop: Prop): unknown {
  if (prop.type === 'integer') return /^[+-]?\d+$/.test(raw) ? Number(raw) : undefined;
  if (prop.type === 'number') {
    const s = raw.replace(/^(\d+),(\d+)$/, '$1.$2');
    return /^[+-]?\d+(\.\d+)?$/.test(s) ? Number(s) : undefined;
  }
  if (prop.type === 'boolean') return YES.has(normalise(raw)) ? true : NO.has(normalise(raw)) ? false : undefined;
  return raw;
}

class TextScan {
  readonly folded: string;
  readonly used: Span[] = [];
  readonly noise: Span[];
  constructor(readonly text: string) {
    this.folded = foldSameLength(text);
    this.noise = noiseSpans(text);
  }
  free(s: Span): boolean {
    return !overlaps(this.used, s);
  }
}

function findEnum(prop: Prop, scan: TextScan): { value: unknown; span: Span } | undefined {
  let best: { value: unknown; span: Span } | undefined;
  for (const value of prop.schema.enum as unknown[]) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const needle = foldSameLength(String(value)).replace(/[_-]+/g, ' ').trim();
    if (!needle) continue;
    const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[\\s_-]+');
    const m = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').exec(scan.folded);
    if (m && scan.free([m.index, m.index + m[0].length]) && (!best || m.index < best.span[0])) {
      best = { value, span: [m.index, m.index + m[0].length] };
    }
  }
  return best;
}

/**
 * A value matching the property's `pattern`: first as written (case-sensitive, so "MOTHER" is not read from
 * "mother" for ^[A-Z0-9]{6}$), then ignoring case (a customer types "ab1234" for ^[A-Z]{2}[0-9]{4}$).
 */
function findPattern(prop: Prop, scan: TextScan): { value: unknown; span: Span } | undefined {
  return findPatternWith(prop, scan, false) ?? findPatternWith(prop, scan, true);
}

function findPatternWith(prop: Prop, scan: TextScan, ignoreCase: boolean): { value: unknown; span: Span } | undefined {
  const pattern = prop.schema.pattern as string;
  const loose = pattern.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');
  for (const m of tenantPatternMatchAll(loose, scan.text, { ignoreCase })) {
    if (!m.text) continue;
    const span: Span = [m.index, m.index + m.text.length];
    const before = scan.text[span[0] - 1] ?? ' ';
    const after = scan.text[span[1]] ?? ' ';
    if (/[\p{L}\p{N}]/u.test(before + after) && /[\p{L}\p{N}]/u.test(m.text[0]! + m.text.at(-1)!)) continue;
    if (!scan.free(span)) continue;
    for (const candidate of [m.text, m.text.toUpperCase(), m.text.toLowerCase()]) {
      const value = coerce(candidate, prop);
      if (value !== undefined && acceptable(value, prop.schema)) return { value, span };
    }
  }
  return undefined;
}

function findPhone(prop: Prop, scan: TextScan, locale: string | null): { value: unknown; span: Span } | undefined {
  const region = locale?.match(/[-_]([A-Za-z]{2})$/)?.[1]?.toUpperCase() as CountryCode | undefined;
  let found: ReturnType<typeof findPhoneNumbersInText> = [];
  try {
    found = findPhoneNumbersInText(scan.text, region ? { defaultCountry: region } : undefined);
  } catch {
    found = [];
  }
  for (const f of found) {
    const span: Span = [f.startsAt, f.endsAt];
    const looksLikeDate = /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$/.test(scan.text.slice(...span).trim());
    if (scan.free(span) && !looksLikeDate && acceptable(f.number.number, prop.schema)) return { value: f.number.number, span };
  }
  const m = /(?:\+|\b00)\d[\d\s().-]{6,}\d/.exec(scan.text);
  if (m && scan.free([m.index, m.index + m[0].length])) {
    const value = `+${m[0].replace(/^00/, '').replace(/\D/g, '')}`;
    if (acceptable(value, prop.schema)) return { value, span: [m.index, m.index + m[0].length] };
  }
  return undefined;
}

function labelsOf(prop: Prop): string[] {
  const words = identifierWords(prop.name).map((w) => stem(normalise(w)));
  let labels = words.filter((w) => !GENERIC_LABELS.has(w) && !STOP_WORDS.has(w));
  if (labels.length === 0 && typeof prop.schema.description === 'string') {
    labels = identifierWords(prop.schema.description)
      .map((w) => stem(normalise(w)))
      .filter((w) => w.length > 2 && !GENERIC_LABELS.has(w) && !STOP_WORDS.has(w))
      .slice(0, 2);
  }
  return labels.length ? labels : words;
}

/** The value after the property's label: "order 12345", "order number is A-17", "name: Ana Silva". */
function findLabelled(prop: Prop, scan: TextScan): { value: unknown; span: Span } | undefined {
  const labels = labelsOf(prop);
  const tokens = tokenSpans(scan.folded);
  for (let i = 0; i < tokens.length; i++) {
    const s = canonicalTerm(stem(tokens[i]!.word));
    if (!labels.some((l) => l === s || (l.length >= 5 && (s.startsWith(l) || l.startsWith(s))))) continue;
    let j = i + 1;
    while (j < tokens.length && j - i <= 3 && CONNECTORS.has(tokens[j]!.word)) j++;
    const t = tokens[j];
    if (!t || t.start - tokens[j - 1]!.end > 3) continue;
    // Extend over joined identifiers (A-17, AB/123, 12.5) in the original text.
    let end = t.end;
    const rest = scan.text.slice(end).match(/^(?:[-_/.][\p{L}\p{N}]+)+/u);
    if (rest) end += rest[0].length;
    let raw = scan.text.slice(t.start, end);
    if (prop.type === 'boolean' && !YES.has(t.word) && !NO.has(t.word)) continue;
    if (prop.type === 'string' && !/\d/.test(raw)) {
      // Names and other words: only capitalised ones (proper nouns), up to three in a row.
      if (!/^\p{Lu}/u.test(raw)) continue;
      let k = j;
      while (k + 1 < tokens.length && k - j < 2 && /^\p{Lu}/u.test(scan.text[tokens[k + 1]!.start]!) && tokens[k + 1]!.start - tokens[k]!.end === 1) k++;
      end = tokens[k]!.end;
      raw = scan.text.slice(t.start, end);
    }
    const span: Span = [t.start, end];
    if (!scan.free(span)) continue;
    const value = coerce(raw, prop);
    if (value !== undefined && acceptable(value, prop.schema)) return { value, span };
  }
  return undefined;
}

const QUOTED = /"([^"\n]{1,200})"|“([^”\n]{1,200})”|«\s?([^»\n]{1,200}?)\s?»|„([^“\n]{1,200})“|(?<![\p{L}\p{N}])'([^'\n]{1,200})'(?![\p{L}\p{N}])/gu;

function findQuoted(prop: Prop, scan: TextScan): { value: unknown; span: Span } | undefined {
  for (const m of scan.text.matchAll(QUOTED)) {
    const span: Span = [m.index!, m.index! + m[0].length];
    const raw = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? '').trim();
    if (raw && scan.free(span) && acceptable(raw, prop.schema)) return { value: raw, span };
  }
  return undefined;
}

function findNumber(prop: Prop, scan: TextScan): { value: unknown; span: Span } | undefined {
  for (const m of scan.text.matchAll(/(?<![\p{L}\p{N}.,#/-])[+-]?\d+(?:[.,]\d+)?(?![\p{L}\p{N}]|[.,/-]\d)/gu)) {
    const span: Span = [m.index!, m.index! + m[0].length];
    if (!scan.free(span) || overlaps(scan.noise, span)) continue;
    const value = coerce(m[0], prop);
    if (value !== undefined && acceptable(value, prop.schema)) return { value, span };
  }
  return undefined;
}

function findYesNo(prop: Prop, scan: TextScan): { value: unknown; span: Span } | undefined {
  for (const t of tokenSpans(scan.folded)) {
    const value = YES.has(t.word) ? true : NO.has(t.word) ? false : undefined;
    if (value !== undefined && scan.free([t.start, t.end])) return { value, span: [t.start, t.end] };
  }
  return undefined;
}

/** Context values whose keys name the property (customer_id ~ customerId ~ customer.id). */
function fromContext(prop: Prop, context: Record<string, unknown>): unknown {
  const key = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, '');
  const want = key(prop.name);
  const flat: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(context)) {
    flat.push([key(k), v]);
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v)) flat.push([key(k) + key(k2), v2]);
  }
  for (const [k, v] of flat) {
    if (k !== want || v === null || v === undefined) continue;
    const value = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? coerce(String(v), prop) : undefined;
    if (value !== undefined && acceptable(value, prop.schema)) return value;
  }
  return undefined;
}

export function extractArguments(input: ExtractArgumentsInput): ExtractedArguments {
  const properties = (input.schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(input.schema.required) ? (input.schema.required as string[]) : [];
  const props: Prop[] = Object.entries(properties).map(([name, schema]) => ({ name, schema, type: typeOf(schema) }));
  const values = new Map<string, unknown>();
  const message = new TextScan(input.message);
  const earlier = input.earlier.map((t) => new TextScan(t));

  const attempt = (scans: TextScan[], find: (p: Prop, s: TextScan) => { value: unknown; span: Span } | undefined, only: (p: Prop) => boolean) => {
    for (const p of props) {
      if (values.has(p.name) || !only(p)) continue;
      for (const scan of scans) {
        const hit = find(p, scan);
        if (hit) {
          values.set(p.name, hit.value);
          scan.used.push(hit.span);
          break;
        }
      }
    }
  };
  const format = (p: Prop) => (typeof p.schema.format === 'string' ? p.schema.format : '');
  const isPhone = (p: Prop) => PHONE_FORMATS.has(format(p)) || (p.type === 'string' && !format(p) && /phone|mobile|handy|telefon|cell/i.test(p.name));
  const plainString = (p: Prop) => p.type === 'string' && !p.schema.enum && !p.schema.pattern && !format(p) && !isPhone(p);
  const specific = (scans: TextScan[]) => {
    attempt(scans, findEnum, (p) => Array.isArray(p.schema.enum));
    attempt(scans, findPattern, (p) => typeof p.schema.pattern === 'string');
    attempt(scans, (p, s) => findPhone(p, s, input.locale), isPhone);
    attempt(scans, (p, s) => (format(p) === 'date' ? extractDate(s.folded, input.locale, (sp) => s.free(sp)) : extractFormat(format(p), s.text, (sp) => s.free(sp), (v) => acceptable(v, p.schema))), (p) => p.type === 'string' && !!format(p) && !isPhone(p));
    attempt(scans, findLabelled, (p) => ['string', 'integer', 'number', 'boolean'].includes(p.type) && !p.schema.enum && !format(p) && !isPhone(p));
  };

  specific([message]);
  attempt([message], findQuoted, plainString);
  specific(earlier);
  for (const p of props) {
    if (values.has(p.name)) continue;
    const v = fromContext(p, input.context);
    if (v !== undefined) values.set(p.name, v);
  }
  attempt([message], findNumber, (p) => p.type === 'integer' || p.type === 'number');
  const booleans = props.filter((p) => p.type === 'boolean' && !values.has(p.name));
  if (booleans.length === 1) attempt([message], findYesNo, (p) => p === booleans[0]);
  const open = props.filter((p) => required.includes(p.name) && !values.has(p.name));
  if (input.answering && open.length === 1 && plainString(open[0]!)) {
    const raw = input.message.trim().replace(/^(?:it'?s|it is|that'?s|es ist|c'est|es)\s+/i, '').replace(/[.!?]+$/, '').trim();
    if (raw && raw.length <= 60 && acceptable(raw, open[0]!.schema)) values.set(open[0]!.name, raw);
  }

  const args: Record<string, unknown> = {};
  for (const p of props) if (values.has(p.name)) args[p.name] = values.get(p.name);
  return { arguments: args, missing: required.filter((r) => !values.has(r)) };
}
