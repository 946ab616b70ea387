import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../domain/secret-box';
import { IdPrefix, newId } from '../domain/ids';

const TOKEN = /^vt_(vis_[0-9A-Za-z]{24})\.([0-9a-z]{1,10})\.([A-Za-z0-9_-]{43})$/;

/** How long a visitor token is good for after it was issued or last renewed (docs/decisions/widget-visitor-token-expiry.md). */
export const VISITOR_TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** A token used when it is older than this is renewed (a fresh 30 days), so a returning visitor never loses it. */
export const VISITOR_TOKEN_RENEW_AFTER_SECONDS = 24 * 60 * 60;

export type VisitorTokenCheck =
  | { ok: true; visitorId: string; expiresAt: number }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'expired'; expiresAt: number };

/**
 * Anonymous visitors' tokens: `vt_<visitor id>.<expiry, unix seconds in base 36>.<HMAC-SHA256 of agent id,
 * visitor id and expiry>` under a key derived from the server secret, one per mode (a test token never
 * verifies in live mode). Bound to the agent, not to a publishable key, so a visitor keeps their
 * conversations when the business rotates keys. Nothing is stored: the signature is the proof, and the
 * expiry it covers bounds a token copied out of a browser to 30 days from its last renewal.
 */
export class VisitorTokens {
  private readonly keys: Record<'test' | 'live', Buffer>;

  constructor(serverSecret: string, private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000)) {
    this.keys = { test: deriveKey(serverSecret, 'visitor-token-test'), live: deriveKey(serverSecret, 'visitor-token-live') };
  }

  /** A new visitor and its token. */
  issue(input: { mode: 'test' | 'live'; agentId: string }): { visitorId: string; token: string } {
    const visitorId = newId(IdPrefix.visitor);
    return { visitorId, token: this.tokenFor({ ...input, visitorId }) };
  }

  /** A token for a visitor already known (a renewal), good for VISITOR_TOKEN_LIFETIME_SECONDS from now. */
  tokenFor(input: { mode: 'test' | 'live'; agentId: string; visitorId: string }): string {
    const exp = (this.nowSeconds() + VISITOR_TOKEN_LIFETIME_SECONDS).toString(36);
    return `vt_${input.visitorId}.${exp}.${this.sign(input.mode, input.agentId, input.visitorId, exp)}`;
  }

  /**
   * The visitor a token names, when this service signed it for this agent and mode and it has not expired.
   * The signature is checked before the expiry is read, so `expired` is said of genuine tokens only.
   */
  verify(input: { mode: 'test' | 'live'; agentId: string; token: string }): VisitorTokenCheck {
    if (input.token.length > 128) return { ok: false, reason: 'invalid' };
    const m = TOKEN.exec(input.token);
    if (!m) return { ok: false, reason: 'invalid' };
    const [, visitorId, exp] = m as unknown as [string, string, string, string];
    const expected = Buffer.from(this.sign(input.mode, input.agentId, visitorId, exp));
    const given = Buffer.from(m[3]!);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid' };
    const expiresAt = parseInt(exp, 36);
    if (expiresAt <= this.nowSeconds()) return { ok: false, reason: 'expired', expiresAt };
    return { ok: true, visitorId, expiresAt };
  }

  /** Whether a valid token is old enough to be renewed. */
  shouldRenew(expiresAt: number): boolean {
    return expiresAt - this.nowSeconds() < VISITOR_TOKEN_LIFETIME_SECONDS - VISITOR_TOKEN_RENEW_AFTER_SECONDS;
  }

  private sign(mode: 'test' | 'live', agentId: string, visitorId: string, exp: string) {
    return createHmac('sha256', this.keys[mode]).update(`${agentId}\u0000${visitorId}\u0000${exp}`).digest('base64url');
  }
}
