import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Keys derived from the one server secret (SERVER_SECRET), one per purpose, so a key that leaks through
 * one use says nothing about another.
 */
export type KeyPurpose = 'otp-code-hash' | 'message-body-seal' | 'short-link-code' | 'email-tracking' | 'citation-page-token' | 'dkim-private-key';

export function deriveKey(serverSecret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', serverSecret, 'converse', purpose, 32));
}

/** HMAC-SHA256 hex of `message` under a derived key. */
export const keyedHash = (key: Buffer, message: string) => createHmac('sha256', key).update(message).digest('hex');

/** AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>` (base64url). */
export function sealText(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function openText(key: Buffer, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed text');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
