import { randomBytes } from 'node:crypto';

/**
 * Per-email return paths (VERP): every email we send has its own envelope sender,
 * `bounces+<token>@<return path domain>`, the token random (96 bits, lower-case hex, since relays may
 * fold the case of a local part) and the address stored with the email. Bounces go to the envelope
 * sender, so a bounce that reaches one names the email it is about, and nobody can make one up for an
 * email whose return path they never saw.
 */
const PREFIX = 'bounces+';
const TOKEN = /^[0-9a-f]{24}$/;

/** A new return path on `domain`. */
export const newReturnPath = (domain: string) => `${PREFIX}${randomBytes(12).toString('hex')}@${domain.toLowerCase()}`;

/** Whether `address` has the shape of one of our return paths on `domain` (lower-cased when it has). */
export function asReturnPath(address: string, domain: string): string | undefined {
  const lower = address.toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0 || lower.slice(at + 1) !== domain.toLowerCase()) return undefined;
  const local = lower.slice(0, at);
  return local.startsWith(PREFIX) && TOKEN.test(local.slice(PREFIX.length)) ? lower : undefined;
}
