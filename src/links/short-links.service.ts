import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { customerLinksServed, type PublicLinksPolicy } from '../domain/public-links';
import { deriveKey } from '../domain/secret-box';
import { ShortLinkRepo } from './short-link.repo';

/** Characters of a code: 10 of base62 ≈ 59.5 bits, out of reach of guessing through a rate-limited endpoint. */
export const SHORT_LINK_CODE_LENGTH = 10;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CODE_PATTERN = new RegExp(`^[0-9A-Za-z]{${SHORT_LINK_CODE_LENGTH}}$`);

/**
 * Short links served by the service (`{PUBLIC_BASE_URL}/l/{code}`): an SMS reply cites a source with one.
 * The code is an HMAC of (account, run, url) under a key derived from SERVER_SECRET, so the same run
 * citing the same url always gets the same link (a retried shaping step stores nothing new) while codes
 * reveal nothing and cannot be enumerated. Following a link answers 302 and counts the click.
 */
export class ShortLinksService {
  private readonly repo = new ShortLinkRepo();
  private readonly key: Buffer;

  constructor(private readonly deps: PublicLinksPolicy & { db: Kysely<DB>; serverSecret: string }) {
    this.key = deriveKey(deps.serverSecret, 'short-link-code');
  }

  /**
   * Whether a reply in this mode may carry short links: not in live mode while PUBLIC_BASE_URL is unset or
   * loopback (the link would open on the service's machine only; src/domain/public-links.ts).
   */
  servesCustomerLinks(livemode: boolean): boolean {
    return customerLinksServed(this.deps, livemode);
  }

  codeFor(input: { accountId: string; runId: string | null; url: string }): string {
    const digest = createHmac('sha256', this.key).update([input.accountId, input.runId ?? '', input.url].join('\u0000')).digest();
    let code = '';
    // 62 * 4 = 248: bytes below 248 map uniformly; the rest are skipped (32 bytes leave plenty).
    for (const b of digest) {
      if (b >= 248) continue;
      code += ALPHABET[b % 62];
      if (code.length === SHORT_LINK_CODE_LENGTH) break;
    }
    return code;
  }

  /** The short link of `url` for a run's reply: stored once, the same on every call. */
  async createShortLink(input: { accountId: string; runId: string | null; conversationId: string | null; url: string }): Promise<{ code: string; shortUrl: string }> {
    const code = this.codeFor(input);
    const row = await this.repo.insertShortLink(this.deps.db, {
      code,
      account_id: input.accountId,
      run_id: input.runId,
      conversation_id: input.conversationId,
      url: input.url,
    });
    if (row.url !== input.url || row.account_id !== input.accountId) {
      // Two different links with one 59-bit code: not expected in the life of the service; refuse rather than misroute.
      throw new AppError('resource_conflict', `Short link code ${code} already names another url`);
    }
    return { code, shortUrl: this.shortUrl(code) };
  }

  shortUrl(code: string): string {
    return `${this.deps.publicBaseUrl.replace(/\/+$/, '')}/l/${code}`;
  }

  /** Where a code leads, counting the click; 404 resource_missing for an unknown code. */
  async followShortLink(input: { code: string }): Promise<{ url: string; clicks: number }> {
    const hit = CODE_PATTERN.test(input.code) ? await this.repo.recordClick(this.deps.db, input.code) : undefined;
    if (!hit) throw notFound('link', input.code, 'code');
    return hit;
  }

  async getShortLink(input: { code: string }) {
    return this.repo.getShortLink(this.deps.db, input.code);
  }
}
