import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../domain/secret-box';
import { IdPrefix, newId } from '../domain/ids';

const TOKEN = /^vt_(vis_[0-9A-Za-z]{24})\.([A-Za-z0-9_-]{43})$/;

/**
 * Anonymous visitors' tokens: `vt_<visitor id>.<HMAC-SHA256 of agent id and visitor id>` under a key
 * derived from the server secret, one per mode (a test token never verifies in live mode). Bound to the
 * agent, not to a publishable key, so a visitor keeps their conversations when the business rotates keys.
 * Nothing is stored: the signature is the proof.
 */
export class VisitorTokens {
  private readonly keys: Record<'test' | 'live', Buffer>;

  constructor(serverSecret: string) {
    this.keys = { test: deriveKey(serverSecret, 'visitor-token-test'), live: deriveKey(serverSecret, 'visitor-token-live') };
  }

  /** A new visitor and its token. */
  issue(input: { mode: 'test' | 'live'; agentId: string }): { visitorId: string; token: string } {
    const visitorId = newId(IdPrefix.visitor);
    return { visitorId, token: `vt_${visitorId}.${this.sign(input.mode, input.agentId, visitorId)}` };
  }

  /** The visitor a token names, when this service signed it for this agent and mode; else undefined. */
  verify(input: { mode: 'test' | 'live'; agentId: string; token: string }): string | undefined {
    if (input.token.length > 128) return undefined;
    const m = TOKEN.exec(input.token);
    if (!m) return undefined;
    const expected = Buffer.from(this.sign(input.mode, input.agentId, m[1]!));
    const given = Buffer.from(m[2]!);
    return expected.length === given.length && timingSafeEqual(expected, given) ? m[1] : undefined;
  }

  private sign(mode: 'test' | 'live', agentId: string, visitorId: string) {
    return createHmac('sha256', this.keys[mode]).update(`${agentId}\u0000${visitorId}`).digest('base64url');
  }
}
