/**
 * Quiet hours for promotional messages: none are sent between 21:00 and 08:00 in the recipient's local
 * time. The timezone comes from the number's country. A country spanning several zones is treated
 * conservatively: sending is allowed only while it is daytime (08:00–21:00) in every listed zone (for
 * the mainland US, 11:00–21:00 Eastern). Countries not in the table use UTC.
 */
export const QUIET_START_HOUR = 21;
export const QUIET_END_HOUR = 8;

export const COUNTRY_TIMEZONES: Record<string, string[]> = {
  US: ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles'],
  CA: ['America/Halifax', 'America/Toronto', 'America/Winnipeg', 'America/Edmonton', 'America/Vancouver'],
  MX: ['America/Mexico_City', 'America/Tijuana'],
  BR: ['America/Sao_Paulo', 'America/Manaus'],
  AR: ['America/Argentina/Buenos_Aires'],
  CL: ['America/Santiago'],
  CO: ['America/Bogota'],
  PE: ['America/Lima'],
  GB: ['Europe/London'],
  GG: ['Europe/Guernsey'],
  JE: ['Europe/Jersey'],
  IM: ['Europe/Isle_of_Man'],
  IE: ['Europe/Dublin'],
  PT: ['Europe/Lisbon'],
  ES: ['Europe/Madrid'],
  FR: ['Europe/Paris'],
  BE: ['Europe/Brussels'],
  NL: ['Europe/Amsterdam'],
  DE: ['Europe/Berlin'],
  CH: ['Europe/Zurich'],
  AT: ['Europe/Vienna'],
  IT: ['Europe/Rome'],
  DK: ['Europe/Copenhagen'],
  NO: ['Europe/Oslo'],
  SE: ['Europe/Stockholm'],
  FI: ['Europe/Helsinki'],
  PL: ['Europe/Warsaw'],
  CZ: ['Europe/Prague'],
  GR: ['Europe/Athens'],
  RO: ['Europe/Bucharest'],
  UA: ['Europe/Kyiv'],
  TR: ['Europe/Istanbul'],
  IL: ['Asia/Jerusalem'],
  AE: ['Asia/Dubai'],
  SA: ['Asia/Riyadh'],
  EG: ['Africa/Cairo'],
  ZA: ['Africa/Johannesburg'],
  NG: ['Africa/Lagos'],
  KE: ['Africa/Nairobi'],
  IN: ['Asia/Kolkata'],
  PK: ['Asia/Karachi'],
  SG: ['Asia/Singapore'],
  MY: ['Asia/Kuala_Lumpur'],
  TH: ['Asia/Bangkok'],
  ID: ['Asia/Jakarta', 'Asia/Jayapura'],
  PH: ['Asia/Manila'],
  CN: ['Asia/Shanghai'],
  HK: ['Asia/Hong_Kong'],
  TW: ['Asia/Taipei'],
  KR: ['Asia/Seoul'],
  JP: ['Asia/Tokyo'],
  AU: ['Australia/Sydney', 'Australia/Adelaide', 'Australia/Brisbane', 'Australia/Perth'],
  NZ: ['Pacific/Auckland'],
};

const formatters = new Map<string, Intl.DateTimeFormat>();
function localMinutes(at: Date, zone: string): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, f);
  }
  const parts = f.formatToParts(at);
  const hour = Number(parts.find((p) => p.type === 'hour')!.value);
  const minute = Number(parts.find((p) => p.type === 'minute')!.value);
  return hour * 60 + minute;
}

export function timezonesFor(country: string | null): string[] {
  return (country && COUNTRY_TIMEZONES[country]) || ['UTC'];
}

const isQuiet = (minutes: number) => minutes >= QUIET_START_HOUR * 60 || minutes < QUIET_END_HOUR * 60;

export function isQuietTime(at: Date, country: string | null): boolean {
  return timezonesFor(country).some((z) => isQuiet(localMinutes(at, z)));
}

/**
 * When a promotional message to `country` may go out if it is due at `at`: null when it may go now,
 * else the first minute at which it is daytime in every zone of the country.
 */
export function quietHoursHoldUntil(at: Date, country: string | null): Date | null {
  if (!isQuietTime(at, country)) return null;
  const start = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  // Candidates: each zone's next local 08:00 (quiet hours end on the minute), checked in order; a
  // minute-by-minute walk covers DST days and odd offsets should every candidate miss.
  const candidates = timezonesFor(country)
    .map((z) => {
      const untilEight = (QUIET_END_HOUR * 60 - localMinutes(start, z) + 1440) % 1440;
      return new Date(start.getTime() + untilEight * 60_000);
    })
    .sort((a, b) => a.getTime() - b.getTime());
  for (const c of candidates) if (c > at && !isQuietTime(c, country)) return c;
  for (let t = start.getTime() + 60_000; t < start.getTime() + 48 * 3_600_000; t += 60_000) {
    if (!isQuietTime(new Date(t), country)) return new Date(t);
  }
  return null;
}
