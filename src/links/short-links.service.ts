import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { customerLinksServed, type PublicLinksPolicy } from '../domain/public-links';
import { deriveKey } from '../domain/secret-box';
import { decideLinkLanding, NO_VERIFIED_DOMAINS, type LinkLanding, type VerifiedDomainsPort } from './link-landing';
import { ShortLinkRepo } from './short-link.repo';

/** Characters of a code: 10 of base62 ≈ 59.5 bits, out of reach of guessing through a rate-limited endpoint. */
export const SHORT_LINK_CODE_LENGTH = 10;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CODE_PATTERN = new RegExp(`^[0-9A-Za-z]{${SHORT_LINK_CODE_LENGTH}}$`);

/**
 * Short links served by the service (`{PUBLIC_BASE_URL}/l/{code}`): an SMS reply cites a source with one.
 * The code is an HMAC of (account, run, url) under a key derived from SERVER_SECRET, so the same run
 * citing the same url always gets the same link (a retried shaping step stores nothing new) while codes
 * reveal nothing and cannot be enumerated. Following a link counts the click and either redirects (302) or
 * shows the destination first (decideLinkLanding: test-mode links, and live links off the account's
 * verified domains).
 */
export class ShortLinksService {
  private readonly repo = new ShortLinkRepo();
  private readonly key: Buffer;

  private readonly ownHost: string;

  constructor(private readonly deps: PublicLinksPolicy & { db: Kysely<DB>; serverSecret: string; verifiedDomains?: VerifiedDomainsPort }) {
    this.key = deriveKey(deps.serverSecret, 'short-link-code');
    this.ownHost = new URL(deps.publicBaseUrl).hostname;
  }

  /**
   * Whether a reply in this mode may carry short links: not in live mode while PUBLIC_BASE_URL is unset or
   * loopback (the link would open on the service's machine only; src/domain/public-links.ts).
   */
  servesCustomerLinks(livemode: boolean): boolean {
    return customerLinksServed(this.deps, livemode);
  }

  codeFor(input: { accountId: string; livemode: boolean; runId: string | null; url: string }): string {
    // A live link's code differs from a test one's for the same url (test codes are as they always were).
    const parts = [input.accountId, input.runId ?? '', input.url, ...(input.livemode ? ['live'] : [])];
    const digest = createHmac('sha256', this.key).update(parts.join('\u0000')).digest();
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
  async createShortLink(input: { accountId: string; livemode: boolean; runId: string | null; conversationId: string | null; url: string }): Promise<{ code: string; shortUrl: string }> {
    const code = this.codeFor(input);
    const row = await this.repo.insertShortLink(this.deps.db, {
      code,
      account_id: input.accountId,
      livemode: input.livemode,
      run_id: input.runId,
      conversation_id: input.conversationId,
      url: input.url,
    });
    if (row.url !== input.url || row.account_id !== input.accountId || row.livemode !== input.livemode) {
      // Two different links with one 59-bit code: not expected in the life of the service; refuse rather than misroute.
      throw new AppError('resource_conflict', `Short link code ${code} already names another url`);
    }
    return { code, shortUrl: this.shortUrl(code) };
  }

  shortUrl(code: string): string {
    return `${this.deps.publicBaseUrl.replace(/\/+$/, '')}/l/${code}`;
  }

  /** Where a code leads and how (redirect, or the destination shown first), counting the click; 404 resource_missing for an unknown code. */
  async followShortLink(input: { code: string }): Promise<{ url: string; clicks: number; livemode: boolean; landing: LinkLanding }> {
    const hit = CODE_PATTERN.test(input.code) ? await this.repo.recordClick(this.deps.db, input.code) : undefined;
    if (!hit) throw notFound('link', input.code, 'code');
    // Test links never redirect, so their account's domains are not even looked up.
    const verifiedDomains = hit.livemode ? await (this.deps.verifiedDomains ?? NO_VERIFIED_DOMAINS).verifiedDomains(hit.account_id, 'live') : [];
    return { url: hit.url, clicks: hit.clicks, livemode: hit.livemode, landing: decideLinkLanding({ livemode: hit.livemode, url: hit.url, verifiedDomains, ownHost: this.ownHost }) };
  }

  async getShortLink(input: { code: string }) {
    return this.repo.getShortLink(this.deps.db, input.code);
  }
}
