import type { Role } from './roles';

/** Who is calling: the account an API key belongs to, the key, its mode (test or live) and its role. */
export interface Principal {
  accountId: string;
  keyId: string;
  mode: 'test' | 'live';
  /** The key's role (http/api-roles.ts); absent: the service itself (CLI, dev examples), as an owner. */
  role?: Role;
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

/** A publishable key (pk_test_… / pk_live_…) authenticated for a request: its account, mode, agent and allowed origins. */
export interface PublishableKeyGrant {
  keyId: string;
  accountId: string;
  mode: 'test' | 'live';
  agentId: string;
  allowedOrigins: string[];
}

/**
 * A website visitor calling through a publishable key (pk_test_… / pk_live_…): the key's account, mode and
 * agent, the visitor (from the service-signed visitor token, or new), and the customer a valid identity JWT
 * names. It is not a Principal: a route serves a visitor only when it says so (defineRoute's `visitor`).
 */
export interface VisitorPrincipal {
  accountId: string;
  mode: 'test' | 'live';
  /** The publishable key's id (pkey_…). */
  keyId: string;
  agentId: string;
  /** vis_…: the anonymous visitor (stable across that browser's conversations while it keeps its token). */
  visitorId: string;
  /** The signed token naming `visitorId`, to hand back to the widget (a new or renewed one when `visitorTokenRenewed`). */
  visitorToken: string;
  /** The request's token was absent or renewed: the answer carries `visitorToken` in its Visitor-Token header. */
  visitorTokenRenewed?: boolean;
  /** The signed-in customer, from a verified identity JWT (`sub` → id). */
  customer?: { id: string; email?: string; name?: string; phone?: string };
  /** Aborted when the key is revoked (here or in another process): open streams end at once. */
  revoked: AbortSignal;
}
