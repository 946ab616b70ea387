import { generateKeyPair, randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema';
import type { PageParams } from '../../db/pagination';
import type { ListObject } from '../../domain/api-schema';
import { AppError, notFound } from '../../domain/errors';
import { IdPrefix, newId } from '../../domain/ids';
import { scopeOf, type Scope } from '../../domain/principal';
import { deriveKey, openText, sealText } from '../../domain/secret-box';
import { EmailDomainRepo, type EmailDomainRow } from './email-domain.repo';
import { dkimKeyOf, dkimRecordName, ownershipRecordName, ownershipRecordValue } from './email-domain-records';
import { toEmailDomainObject, type EmailDomainObject } from './email.schemas';

const generateRsaKeyPair = promisify(generateKeyPair);

/** Domains an account may hold per mode (each costs an RSA key pair to create). */
export const MAX_EMAIL_DOMAINS_PER_ACCOUNT = 50;

/**
 * A domain of at most 200 characters: its records' names (`_converse-verification.` and the DKIM selector's
 * `cv….` + `._domainkey.` before it) must still fit DNS's 253.
 */
export const MAX_DOMAIN_LENGTH = 200;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * A DNS name of two labels or more (letters, digits, inner hyphens; the last label starts with a letter),
 * either case, an optional final dot. The API's body schema states it, so what the schema accepts is taken.
 */
export const DOMAIN_NAME_PATTERN = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?$`);
const isDomainName = (d: string) => d.length >= 3 && d.length <= MAX_DOMAIN_LENGTH && DOMAIN_NAME_PATTERN.test(d);


/** What nodemailer's `dkim` option takes. */
export interface DkimSigningKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** Looks TXT records up (node's resolver; tests point it at a DNS server on loopback). */
export interface TxtLookup {
  resolveTxt(name: string): Promise<string[][]>;
}

export function createTxtLookup(options: { servers: string[]; timeoutMs: number }): TxtLookup {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
  if (options.servers.length > 0) resolver.setServers(options.servers);
  return resolver;
}

/**
 * Email domains: an account adds a domain, publishes the TXT record the API and the console show
 * (`_converse-verification.<domain>` holding a token of its own), and asks the service to check it. Only
 * then does live mail go out from, or come in for, addresses on that domain (or a subdomain). The proof
 * is per account and mode: another account that proves the same domain holds it too, and a test-mode
 * domain claims nothing (test mode never sends to a relay nor receives from one).
 *
 * Each domain gets an RSA key for DKIM; once its record (`<selector>._domainkey.<domain>`) is found, live
 * mail from the domain is signed with it.
 */
export class EmailDomainsService {
  private readonly repo = new EmailDomainRepo();
  private readonly sealKey: Buffer;

  constructor(private readonly deps: { db: Kysely<DB>; dns: TxtLookup; serverSecret: string }) {
    this.sealKey = deriveKey(deps.serverSecret, 'dkim-private-key');
  }

  async addDomain(input: Scope & { domain: string }): Promise<EmailDomainObject> {
    const domain = normalizeDomain(input.domain);
    if (!isDomainName(domain)) throw new AppError('parameter_invalid', `Invalid domain: '${input.domain}' (a DNS name such as acme.example)`, { param: 'domain' });
    // Checked before the key pair is made, so a refused request costs no key generation.
    const held = await this.repo.countDomains(this.deps.db, scopeOf(input), domain);
    if (held.exists) throw new AppError('resource_conflict', `${domain} is already one of your domains`, { param: 'domain' });
    if (held.count >= MAX_EMAIL_DOMAINS_PER_ACCOUNT) {
      throw new AppError('account_limit_reached', `This account already has ${held.count} email domains, the most allowed (${MAX_EMAIL_DOMAINS_PER_ACCOUNT}); delete one before adding another`);
    }
    const { publicKey, privateKey } = await generateRsaKeyPair('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const row = await this.repo.insertDomain(this.deps.db, {
      id: newId(IdPrefix.emailDomain),
      account_id: input.accountId,
      livemode: input.livemode,
      domain,
      verification_token: randomBytes(18).toString('base64url'),
      dkim_selector: `cv${randomBytes(4).toString('hex')}`,
      dkim_public_key: (publicKey as Buffer).toString('base64'),
      dkim_private_key_sealed: sealText(this.sealKey, privateKey as string),
    });
    if (!row) throw new AppError('resource_conflict', `${domain} is already one of your domains`, { param: 'domain' });
    return toEmailDomainObject(row);
  }

  async getDomain(input: Scope & { emailDomainId: string }): Promise<EmailDomainObject> {
    return toEmailDomainObject(await this.row(input));
  }

  async listDomainPage(input: Scope & { page: PageParams }): Promise<ListObject<EmailDomainObject>> {
    const page = await this.repo.listDomainPage(this.deps.db, scopeOf(input), input.page);
    return { object: 'list', data: page.data.map(toEmailDomainObject), has_more: page.has_more };
  }

  /**
   * Looks the domain's records up. The ownership record found: the domain is verified (and stays so);
   * the DKIM record found with this domain's key: live mail from it is signed. The ownership record not
   * found: 422 `domain_not_verified` naming what was expected, and nothing changes.
   */
  async verifyDomain(input: Scope & { emailDomainId: string }): Promise<EmailDomainObject> {
    const row = await this.row(input);
    const ownershipName = ownershipRecordName(row.domain);
    const expected = ownershipRecordValue(row.verification_token);
    const [ownership, dkim] = await Promise.all([this.txt(ownershipName), this.txt(dkimRecordName(row.domain, row.dkim_selector))]);
    const owned = ownership.includes(expected);
    const dkimFound = dkim.some((value) => dkimKeyOf(value) === row.dkim_public_key);
    if (!owned && !row.verified_at) {
      throw new AppError(
        'domain_not_verified',
        `No TXT record "${expected}" at ${ownershipName}${ownership.length ? ` (found ${ownership.length} other value${ownership.length > 1 ? 's' : ''})` : ''}. Publish it, then verify again (DNS changes can take a while to show).`,
        { param: 'id' },
      );
    }
    const updated = await this.repo.recordCheck(this.deps.db, scopeOf(input), row.id, { ownership: owned, dkim: dkimFound });
    if (!updated) throw notFound('email domain', input.emailDomainId);
    return toEmailDomainObject(updated);
  }

  async deleteDomain(input: Scope & { emailDomainId: string }): Promise<{ id: string; object: 'email_domain'; deleted: true }> {
    const row = await this.repo.deleteDomain(this.deps.db, scopeOf(input), input.emailDomainId);
    if (!row) throw notFound('email domain', input.emailDomainId);
    return { id: row.id, object: 'email_domain', deleted: true };
  }

  /** The domains the account has proven in this mode (lower-case; their subdomains are covered too). */
  async verifiedDomains(input: Scope): Promise<string[]> {
    return (await this.repo.listVerifiedDomains(this.deps.db, scopeOf(input))).map((d) => d.domain);
  }

  /** Whether the account has proven `domain` (or a parent of it) in this mode. */
  async isVerified(input: Scope & { domain: string }): Promise<boolean> {
    return (await this.repo.findVerifiedCovering(this.deps.db, scopeOf(input), input.domain)) !== undefined;
  }

  /** The DKIM key mail from `domain` is signed with: the covering verified domain's, once its record was found. */
  async signingKeyFor(input: Scope & { domain: string }): Promise<DkimSigningKey | undefined> {
    const row = await this.repo.findVerifiedCovering(this.deps.db, scopeOf(input), input.domain);
    if (!row?.dkim_verified_at) return undefined;
    return { domainName: row.domain, keySelector: row.dkim_selector, privateKey: openText(this.sealKey, row.dkim_private_key_sealed) };
  }

  private async row(input: Scope & { emailDomainId: string }): Promise<EmailDomainRow> {
    const row = await this.repo.getDomainById(this.deps.db, scopeOf(input), input.emailDomainId);
    if (!row) throw notFound('email domain', input.emailDomainId);
    return row;
  }

  /** The TXT values at `name` (each record's strings joined); none when the name or the record does not exist. */
  private async txt(name: string): Promise<string[]> {
    try {
      return (await this.deps.dns.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (err) {
      const code = (err as { code?: string }).code;
      // EBADNAME: a name DNS cannot hold has no records either.
      if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'NOTFOUND' || code === 'NODATA' || code === 'EBADNAME' || code === 'BADNAME') return [];
      throw new AppError('upstream_unavailable', `The DNS lookup of ${name} failed (${code ?? String(err)}); try again`, { cause: err });
    }
  }
}

/** Lower-case, without a trailing dot or surrounding spaces. */
export const normalizeDomain = (domain: string) => domain.trim().toLowerCase().replace(/\.$/, '');
