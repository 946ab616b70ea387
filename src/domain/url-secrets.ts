/**
 * Query parameters that look like credentials in a URL the service stores and shows back (a tool's
 * endpoint): a URL is configuration, readable by every console user and API key of the account, logged,
 * and copied into agent versions. A tool endpoint authenticates the service by the `Service-Signature`
 * header every call carries (README "Tools"), so no credential ever needs to ride in the URL. A parameter is refused
 * when its name says it is a credential, or its value looks like one (long and random-looking).
 * Decision: docs/decisions/agents-tool-endpoint-secrets.md.
 */

/** Words that make a parameter name a credential's, matched per word of the name (api_key, X-Auth-Token, accessToken). */
const SECRET_WORDS = new Set([
  'key', 'apikey', 'token', 'secret', 'password', 'passwd', 'pwd', 'pass', 'passphrase', 'signature', 'sig', 'auth',
  'authorization', 'credential', 'credentials', 'session', 'sessionid', 'jwt', 'bearer', 'private', 'otp', 'sas',
]);
/** Long values whose characters look random (high entropy) are refused whatever the name. */
const RANDOM_MIN_LENGTH = 20;
const RANDOM_MIN_BITS_PER_CHAR = 3.5;

/** A parameter name's words: split on non-alphanumerics and camelCase (accessToken → access, token). */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function bitsPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/** Whether a value looks like a generated secret: long, letters and digits mixed, high entropy. */
export function looksRandom(value: string): boolean {
  if (value.length < RANDOM_MIN_LENGTH) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return bitsPerChar(value) >= RANDOM_MIN_BITS_PER_CHAR;
}

/** The first query parameter of `url` that looks like a credential, and why; null when there is none. */
export function secretLookingQueryParam(url: string): { name: string; reason: 'name' | 'value' } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  for (const [name, value] of parsed.searchParams) {
    const words = nameWords(name);
    if (words.some((w) => SECRET_WORDS.has(w)) || SECRET_WORDS.has(words.join(''))) return { name, reason: 'name' };
    if (looksRandom(value)) return { name, reason: 'value' };
  }
  return null;
}
