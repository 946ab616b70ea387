/** Who is calling: the account an API key belongs to, the key, and its mode (test or live). */
export interface Principal {
  accountId: string;
  keyId: string;
  mode: 'test' | 'live';
}
