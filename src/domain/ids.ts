import { createHash, randomBytes } from 'node:crypto';

/** Type prefixes of public identifiers (SPEC "Identifier prefixes", plus the ones DESIGN adds). */
export const IdPrefix = {
  account: 'acct',
  apiKey: 'key',
  message: 'msg',
  messageBatch: 'mbat',
  agent: 'agt',
  conversation: 'cnv',
  run: 'run',
  knowledgeBase: 'kb',
  source: 'src',
  record: 'rec',
  file: 'file',
  event: 'evt',
  toolCall: 'call',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  webhookSecret: 'whsec',
  verification: 'ver',
  phoneNumber: 'pn',
  sender: 'snd',
  emailAddress: 'ea',
  email: 'em',
  emailDomain: 'edom',
  testCase: 'tcase',
  evaluation: 'eval',
  publishableKey: 'pkey',
  identitySecret: 'idk',
  visitor: 'vis',
  queue: 'que',
  invite: 'inv',
  note: 'note',
  savedReply: 'srep',
  feedback: 'fdbk',
} as const;
export type IdPrefix = (typeof IdPrefix)[keyof typeof IdPrefix];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) out += ALPHABET[b % 62];
  return out;
}

/** A random identifier such as `msg_4fQk…` (24 characters of base62 after the prefix). */
export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${base62(randomBytes(length))}`;
}

/** A deterministic identifier derived from other ids, for idempotent inserts (retried activities). */
export function derivedId(prefix: IdPrefix, ...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return `${prefix}_${base62(digest.subarray(0, 24))}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`);
}
