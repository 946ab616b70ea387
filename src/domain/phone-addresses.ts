import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { isE164 } from './channels';

/**
 * Phone numbers and sender addresses. Recipients must be E.164 and valid for their country's numbering
 * plan; senders are an alphanumeric sender ID (1–11 of A–Z a–z 0–9 space, at least one letter), a short
 * code (3–8 digits) or an E.164 number.
 */
export type SenderKind = 'alphanumeric' | 'short_code' | 'number';

export function parseRecipient(value: string): { ok: true; number: string; country: string | null } | { ok: false; reason: string } {
  if (!isE164(value)) return { ok: false, reason: 'must be an E.164 phone number such as +14155550100' };
  const parsed = parsePhoneNumberFromString(value);
  if (!parsed || !parsed.isValid()) return { ok: false, reason: 'is not a valid phone number' };
  return { ok: true, number: parsed.number, country: parsed.country ?? null };
}

export function countryOf(value: string): string | null {
  if (!isE164(value)) return null;
  return parsePhoneNumberFromString(value)?.country ?? null;
}

export function classifySender(value: string): SenderKind | null {
  if (isE164(value)) return 'number';
  if (/^\d{3,8}$/.test(value)) return 'short_code';
  if (/^[A-Za-z0-9 ]{1,11}$/.test(value) && /[A-Za-z]/.test(value) && value.trim() === value) return 'alphanumeric';
  return null;
}
