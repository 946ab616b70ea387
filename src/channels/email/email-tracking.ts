import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Open and click tracking tokens (pure): `<email id>.<signature>`, signed with a key derived from the
 * server secret, so the routes need no table and a click redirect only goes where we wrote the link to
 * (no open redirect). A click token signs the email id and the destination together.
 */
const sign = (key: Buffer, purpose: 'open' | 'click', emailId: string, url = '') =>
  createHmac('sha256', key).update(`${purpose}\u0000${emailId}\u0000${url}`).digest('base64url').slice(0, 32);

export const openToken = (key: Buffer, emailId: string) => `${emailId}.${sign(key, 'open', emailId)}`;
export const clickToken = (key: Buffer, emailId: string, url: string) => `${emailId}.${sign(key, 'click', emailId, url)}`;

/** The email id of a valid token, or undefined. */
export function verifyTrackingToken(key: Buffer, token: string, purpose: 'open' | 'click', url = ''): string | undefined {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const emailId = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(key, purpose, emailId, url));
  return given.length === expected.length && timingSafeEqual(given, expected) ? emailId : undefined;
}
