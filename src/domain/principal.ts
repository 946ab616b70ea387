/** Who is calling: the account an API key belongs to, the key, and its mode (test or live). */
export interface Principal {
  accountId: string;
  keyId: string;
  mode: 'test' | 'live';
}

/**
 * What a caller may see and change: one account's objects of one mode. A `sk_test_` key's scope holds only
 * test-mode objects, a `sk_live_` key's only live ones; repos filter every query by both (`inScope`).
 */
export interface Scope {
  accountId: string;
  livemode: boolean;
}

/**
 * The scope of a principal (an API key or a console session), or the scope fields alone of a service input
 * that carries them (to pass on without the input's other fields).
 */
export function scopeOf(p: { accountId: string; mode: 'test' | 'live' } | Scope): Scope {
  return { accountId: p.accountId, livemode: 'mode' in p ? p.mode === 'live' : p.livemode };
}

/** Whether an owner (an account and mode, or none) is exactly this scope. */
export function sameScope(owner: Scope | undefined, scope: Scope): boolean {
  return owner !== undefined && owner.accountId === scope.accountId && owner.livemode === scope.livemode;
}
