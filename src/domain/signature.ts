import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Signing scheme shared by webhook deliveries, status callbacks and tool calls (SPEC "Authentication"). */
export const SIGNATURE_HEADER = 'Service-Signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/**
 * The secrets a payload is signed with: one, or during a rotation's grace period the new one and the
 * old one. Each gives one `v1=` entry, so receivers holding either secret verify (Stripe does the same).
 */
export type SigningSecrets = string | readonly string[];

/** How long a replaced signing secret may keep signing beside the new one (Stripe allows up to 24 h). */
export const MAX_SIGNING_SECRET_GRACE_SECONDS = 24 * 3600;

/** Current secret first, then the previous one while it has not expired. */
export function activeSigningSecrets(row: { signing_secret: string; previous_signing_secret: string | null; previous_signing_secret_expires_at: Date | null }, now = new Date()): string[] {
  const previousActive = row.previous_signing_secret && row.previous_signing_secret_expires_at && row.previous_signing_secret_expires_at > now;
  return previousActive ? [row.signing_secret, row.previous_signing_secret!] : [row.signing_secret];
}

export function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** `t=<unix seconds>,v1=<hex hmac-sha256 of "t.body">[,v1=…]` over the exact bytes sent, one v1 per secret. */
export function signatureHeader(secrets: SigningSecrets, rawBody: string | Buffer, timestamp = Math.floor(Date.now() / 1000)): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestamp}`, ...list.map((s) => `v1=${computeSignature(s, timestamp, rawBody)}`)].join(',');
}

/**
 * What a receiver can check before reading the body: the header has a timestamp no more than `tolerance`
 * seconds away and at least one `v1=` entry of the right length (64 hex digits). A request failing this
 * cannot verify, whatever its body.
 */
export function signatureHeaderPlausible(header: string, opts: { toleranceSeconds?: number; nowSeconds?: number } = {}): boolean {
  const t = Number(/(?:^|,)\s*t=(\d{1,12})\s*(?:,|$)/.exec(header)?.[1]);
  if (!Number.isInteger(t)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  return /(?:^|,)\s*v1=[0-9a-fA-F]{64}\s*(?:,|$)/.test(header);
}

/** Receiver side: constant-time comparison and a timestamp no more than `tolerance` seconds away. */
export function verifySignatureHeader(
  secret: string,
  rawBody: string | Buffer,
  header: string,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const [k, v] = item.split('=', 2);
    if (!k || v === undefined) continue;
    parts.set(k.trim(), [...(parts.get(k.trim()) ?? []), v.trim()]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(computeSignature(secret, t, rawBody), 'hex');
  return (parts.get('v1') ?? []).some((sig) => {
    const given = Buffer.from(sig, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
