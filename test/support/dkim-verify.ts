import { createHash, createPublicKey, verify } from 'node:crypto';

/**
 * Checks a DKIM-Signature (RFC 6376, rsa-sha256, relaxed/relaxed canonicalization) of a raw message
 * against the public key of the DNS record the receiver would look up (`p=` base64 SPKI). Returns the
 * signature's tags when it verifies; throws saying what does not.
 */
export function verifyDkim(raw: Buffer, publicKeyBase64: string): Record<string, string> {
  const text = raw.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const headerText = text.slice(0, split);
  const body = text.slice(split + 4);
  // Unfolded header lines, in order.
  const headers = headerText.split(/\r\n(?![ \t])/).map((line) => ({ name: line.slice(0, line.indexOf(':')).trim().toLowerCase(), line }));
  const signature = headers.find((h) => h.name === 'dkim-signature');
  if (!signature) throw new Error('no DKIM-Signature header');
  const tags = Object.fromEntries(
    signature.line
      .slice(signature.line.indexOf(':') + 1)
      .split(';')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((t) => [t.slice(0, t.indexOf('=')).trim(), t.slice(t.indexOf('=') + 1).replace(/\s+/g, '')]),
  ) as Record<string, string>;
  if (tags.a !== 'rsa-sha256' || tags.c !== 'relaxed/relaxed') throw new Error(`unexpected a=${tags.a} c=${tags.c}`);

  const relaxedBody = body
    .split('\r\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
    .join('\r\n')
    .replace(/(\r\n)*$/, '');
  const bodyHash = createHash('sha256').update(relaxedBody ? `${relaxedBody}\r\n` : '', 'latin1').digest('base64');
  if (bodyHash !== tags.bh) throw new Error(`body hash ${bodyHash} is not bh=${tags.bh}`);

  const relaxedHeader = (line: string) => {
    const colon = line.indexOf(':');
    return `${line.slice(0, colon).trim().toLowerCase()}:${line.slice(colon + 1).replace(/\r\n/g, '').replace(/[ \t]+/g, ' ').trim()}`;
  };
  // Each signed name takes the last unused instance of that header (RFC 6376 §5.4.2).
  const used = new Set<number>();
  const signed = (tags.h ?? '').split(':').map((name) => {
    const n = name.trim().toLowerCase();
    for (let i = headers.length - 1; i >= 0; i--) {
      if (headers[i]!.name === n && !used.has(i) && headers[i] !== signature) {
        used.add(i);
        return `${relaxedHeader(headers[i]!.line)}\r\n`;
      }
    }
    return '';
  });
  const unsignedSignature = relaxedHeader(signature.line).replace(/(\bb=)[^;]*/, '$1');
  const data = Buffer.from(signed.join('') + unsignedSignature, 'latin1');
  const key = createPublicKey({ key: Buffer.from(publicKeyBase64, 'base64'), format: 'der', type: 'spki' });
  if (!verify('sha256', data, key, Buffer.from(tags.b!, 'base64'))) throw new Error('the signature does not verify with the published key');
  return tags;
}
