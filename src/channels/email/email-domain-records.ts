/** The DNS records an email domain is proven and signed with (names and values the console shows). */

/** The TXT record that proves an account owns a domain: its name and the value it must hold. */
export const ownershipRecordName = (domain: string) => `_converse-verification.${domain}`;
export const ownershipRecordValue = (token: string) => `converse-verification=${token}`;

/** The DKIM key record (RFC 6376 §3.6.2) of a domain's selector. */
export const dkimRecordName = (domain: string, selector: string) => `${selector}._domainkey.${domain}`;
export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;

/** The `p=` of a DKIM record (spaces removed), undefined when it has none. */
export function dkimKeyOf(record: string): string | undefined {
  const tag = record.split(';').map((t) => t.trim()).find((t) => t.startsWith('p='));
  return tag?.slice(2).replace(/\s+/g, '');
}
