import type { Kysely } from 'kysely';
import type { AgentsService } from '../../agents/agents.service';
import type { DB } from '../../db/schema';
import { AppError, notFound } from '../../domain/errors';
import { IdPrefix, newId } from '../../domain/ids';
import { EmailRepo } from './email.repo';
import { EmailDomainRepo } from './email-domain.repo';
import { toEmailAddressObject, type EmailAddressObject } from './email.schemas';
import { scopeOf, type Scope } from '../../domain/principal';
import type { PageParams } from '../../db/pagination';
import type { ListObject } from '../../domain/api-schema';

/** A plain mailbox address (local@domain); display names and comments are not part of it. */
export const MAILBOX_PATTERN = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/**
 * The account's inbound email addresses, created over the API (`/v1/email_addresses`), the console or by
 * the operator (CLI). A live address needs its domain proven by the account (EmailDomainsService) and has
 * one owner among live addresses; a test-mode address needs no proof and claims nothing (unique within
 * its account only: test mode neither sends to a relay nor receives from one). A live agent configured
 * for email can be attached to an address: it answers what arrives there, and its replies go out from it.
 */
export class EmailAddressesService {
  private readonly repo = new EmailRepo();
  private readonly domains = new EmailDomainRepo();

  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService }) {}

  /**
   * Registers an address. Live mode: its domain (or a parent) must be one the account has verified (422
   * `domain_not_verified`), and another account's live address of the same name is 409. Test mode: any
   * address, once per account.
   */
  async addAddress(input: Scope & { address: string; displayName?: string; agentId?: string }): Promise<EmailAddressObject> {
    const address = input.address.trim();
    if (!MAILBOX_PATTERN.test(address) || address.length > 254) throw new AppError('parameter_invalid', `Invalid email address: '${input.address}'`, { param: 'address' });
    const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    if (input.livemode && !(await this.domains.findVerifiedCovering(this.deps.db, scopeOf(input), domain))) {
      throw new AppError('domain_not_verified', `${domain} is not one of your verified domains: add it (POST /v1/email_domains), publish its TXT record and verify it first`, { param: 'address' });
    }
    if (input.agentId) await this.checkAgent(scopeOf(input), input.agentId);
    const row = await this.repo.insertAddress(this.deps.db, {
      id: newId(IdPrefix.emailAddress),
      account_id: input.accountId, livemode: input.livemode,
      address,
      display_name: input.displayName?.trim() || null,
      agent_id: input.agentId ?? null,
    });
    if (!row) throw new AppError('resource_conflict', `${address} is already registered`, { param: 'address' });
    return toEmailAddressObject(row);
  }

  /** Attaches a live email agent to the address (null detaches: what arrives there then reaches the inbox for the team). */
  async attachAgent(input: Scope & { emailAddressId: string; agentId: string | null }): Promise<EmailAddressObject> {
    return this.updateAddress(input);
  }

  /** Changes the address's agent (null detaches) and display name (null clears); what is not given stays. */
  async updateAddress(input: Scope & { emailAddressId: string; agentId?: string | null; displayName?: string | null }): Promise<EmailAddressObject> {
    const current = await this.getAddress(input);
    if (input.agentId) await this.checkAgent(scopeOf(input), input.agentId);
    const changes = {
      ...(input.agentId !== undefined ? { agent_id: input.agentId } : {}),
      ...(input.displayName !== undefined ? { display_name: input.displayName?.trim() || null } : {}),
    };
    // Nothing to change (an empty body): the address as it is, like any update that changes nothing.
    if (Object.keys(changes).length === 0) return current;
    const row = await this.repo.updateAddress(this.deps.db, scopeOf(input), input.emailAddressId, changes);
    if (!row) throw notFound('email address', input.emailAddressId);
    return toEmailAddressObject(row);
  }

  async getAddress(input: Scope & { emailAddressId: string }): Promise<EmailAddressObject> {
    const row = await this.repo.getAddressById(this.deps.db, scopeOf(input), input.emailAddressId);
    if (!row) throw notFound('email address', input.emailAddressId);
    return toEmailAddressObject(row);
  }

  /**
   * Removes the address: what arrives there afterwards is ignored. Its conversations and emails stay (they
   * name the address as text), and the address can be registered again.
   */
  async deleteAddress(input: Scope & { emailAddressId: string }): Promise<{ id: string; object: 'email_address'; deleted: true }> {
    const row = await this.repo.deleteAddress(this.deps.db, scopeOf(input), input.emailAddressId);
    if (!row) throw notFound('email address', input.emailAddressId);
    return { id: row.id, object: 'email_address', deleted: true };
  }

  /** The scope's address `address` (case-insensitive), undefined when it is not the scope's. */
  async findAccountAddress(input: Scope & { address: string }): Promise<EmailAddressObject | undefined> {
    const row = await this.repo.findAddress(this.deps.db, [input.address], scopeOf(input));
    return row && toEmailAddressObject(row);
  }

  async listAddresses(input: Scope): Promise<EmailAddressObject[]> {
    return (await this.repo.listAddresses(this.deps.db, scopeOf(input))).map(toEmailAddressObject);
  }

  async listAddressPage(input: Scope & { page: PageParams }): Promise<ListObject<EmailAddressObject>> {
    const page = await this.repo.listAddressPage(this.deps.db, scopeOf(input), input.page);
    return { object: 'list', data: page.data.map(toEmailAddressObject), has_more: page.has_more };
  }

  private async checkAgent(scope: Scope, agentId: string) {
    const live = await this.deps.agents.getLiveVersion({ ...scope, agentId, attached: true });
    if (!live.config.channels.includes('email')) {
      throw new AppError('channel_not_supported', `Agent ${agentId} is not configured for the email channel (it has ${live.config.channels.join(', ')})`, { param: 'agent_id' });
    }
  }
}
