import type { Kysely } from 'kysely';
import type { AgentsService } from '../../agents/agents.service';
import type { DB } from '../../db/schema';
import { AppError, notFound } from '../../domain/errors';
import { IdPrefix, newId } from '../../domain/ids';
import { EmailRepo } from './email.repo';
import { toEmailAddressObject, type EmailAddressObject } from './email.schemas';
import { scopeOf, type Scope } from '../../domain/principal';

/** A plain mailbox address (local@domain); display names and comments are not part of it. */
export const MAILBOX_PATTERN = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/**
 * The account's inbound email addresses, provisioned by the operator (CLI) like phone numbers. A live
 * agent configured for email can be attached to an address: it answers what arrives there, and its
 * replies go out from that address.
 */
export class EmailAddressesService {
  private readonly repo = new EmailRepo();

  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService }) {}

  async addAddress(input: Scope & { address: string; displayName?: string; agentId?: string }): Promise<EmailAddressObject> {
    const address = input.address.trim();
    if (!MAILBOX_PATTERN.test(address) || address.length > 254) throw new AppError('parameter_invalid', `Invalid email address: '${input.address}'`, { param: 'address' });
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

  /** Attaches a live email agent to the address (null detaches: what arrives there is then ignored). */
  async attachAgent(input: Scope & { emailAddressId: string; agentId: string | null }): Promise<EmailAddressObject> {
    if (!(await this.repo.getAddressById(this.deps.db, scopeOf(input), input.emailAddressId))) throw notFound('email address', input.emailAddressId);
    if (input.agentId !== null) await this.checkAgent(scopeOf(input), input.agentId);
    const row = await this.repo.setAddressAgent(this.deps.db, scopeOf(input), input.emailAddressId, input.agentId);
    if (!row) throw notFound('email address', input.emailAddressId);
    return toEmailAddressObject(row);
  }

  async listAddresses(input: Scope): Promise<EmailAddressObject[]> {
    return (await this.repo.listAddresses(this.deps.db, scopeOf(input))).map(toEmailAddressObject);
  }

  private async checkAgent(scope: Scope, agentId: string) {
    const live = await this.deps.agents.getLiveVersion({ ...scope, agentId });
    if (!live.config.channels.includes('email')) {
      throw new AppError('channel_not_supported', `Agent ${agentId} is not configured for the email channel (it has ${live.config.channels.join(', ')})`, { param: 'agent_id' });
    }
  }
}
