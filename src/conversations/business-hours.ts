import type { Weekday } from '../db/tables/agents';

export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** A queue's business hours: `weekly` null is always open; hours are "HH:MM-HH:MM" in `timeZone`. */
export interface BusinessHours {
  timeZone: string;
  weekly: Partial<Record<Weekday, string[]>> | null;
  /** Local dates (YYYY-MM-DD) closed all day. */
  holidays: string[];
}

/** How far ahead the next opening is looked for (a queue closed longer than this says no time). */
const LOOKAHEAD_DAYS = 31;

/** "09:00-17:30" → minutes since local midnight [open, close); "24:00" may close a day. */
export function parseInterval(text: string): { open: number; close: number } | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]|24):([0-5]\d)$/.exec(text);
  if (!m) return undefined;
  const open = Number(m[1]) * 60 + Number(m[2]);
  const close = Number(m[3]) * 60 + Number(m[4]);
  if (close > 24 * 60 || close <= open) return undefined;
  return { open, close };
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  minutes: number;
}

const partFormatters = new Map<string, Intl.DateTimeFormat>();
function localParts(at: Date, zone: string): LocalParts {
  let f = partFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    partFormatters.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), minutes: Number(p.hour) * 60 + Number(p.minute) };
}

/** The zone's offset from UTC at `at`, in minutes. */
function offsetMinutes(at: Date, zone: string): number {
  const p = localParts(at, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day) + p.minutes * 60_000;
  return Math.round((asUtc - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000);
}

/** The instant a local wall-clock time happens in `zone` (a time skipped by DST moves forward by the gap). */
function instantOf(date: { year: number; month: number; day: number }, minutes: number, zone: string): Date {
  const wall = Date.UTC(date.year, date.month - 1, date.day) + minutes * 60_000;
  let guess = wall - offsetMinutes(new Date(wall), zone) * 60_000;
  guess = wall - offsetMinutes(new Date(guess), zone) * 60_000;
  return new Date(guess);
}

const isoDate = (d: { year: number; month: number; day: number }) => `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
/** Monday-first weekday of a calendar date. */
const weekdayOf = (d: { year: number; month: number; day: number }): Weekday => WEEKDAYS[(new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() + 6) % 7]!;

function intervalsOn(hours: BusinessHours, date: { year: number; month: number; day: number }) {
  if (hours.holidays.includes(isoDate(date))) return [];
  return (hours.weekly?.[weekdayOf(date)] ?? []).map(parseInterval).filter((i): i is { open: number; close: number } => i !== undefined).sort((a, b) => a.open - b.open);
}

/**
 * Whether the queue is open at `at`, and when it is not, the next instant it opens (undefined when it
 * does not open within a month: a queue with no hours at all, or closed for longer).
 */
export function businessHoursAt(hours: BusinessHours, at: Date): { open: true } | { open: false; opensAt?: Date } {
  if (hours.weekly === null) return { open: true };
  const now = localParts(at, hours.timeZone);
  if (intervalsOn(hours, now).some((i) => now.minutes >= i.open && now.minutes < i.close)) return { open: true };
  for (let d = 0; d <= LOOKAHEAD_DAYS; d++) {
    const c = new Date(Date.UTC(now.year, now.month - 1, now.day + d));
    const date = { year: c.getUTCFullYear(), month: c.getUTCMonth() + 1, day: c.getUTCDate() };
    const next = intervalsOn(hours, date).find((i) => d > 0 || i.open > now.minutes);
    if (next) return { open: false, opensAt: instantOf(date, next.open, hours.timeZone) };
  }
  return { open: false };
}

/**
 * "Monday at 09:00" in the customer's language and the queue's time zone ("lundi à 09:00" in French):
 * the weekday and time, with the date too when the opening is a week or more away.
 */
export function formatOpening(opensAt: Date, at: Date, hours: BusinessHours, locale: string): string {
  const farAway = opensAt.getTime() - at.getTime() >= 6 * 86_400_000;
  const lang = safeLocale(locale);
  const day = new Intl.DateTimeFormat(lang, { timeZone: hours.timeZone, weekday: 'long', ...(farAway ? { day: 'numeric', month: 'long' } : {}) }).format(opensAt);
  const time = new Intl.DateTimeFormat(lang, { timeZone: hours.timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(opensAt);
  return `${day} ${AT_WORD[lang.slice(0, 2)] ?? AT_WORD.en} ${time}`;
}

const AT_WORD: Record<string, string> = { en: 'at', de: 'um', fr: 'à', es: 'a las' };

function safeLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? 'en';
  } catch {
    return 'en';
  }
}
