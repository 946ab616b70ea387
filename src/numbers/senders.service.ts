import type { Kysely } from 'kysely';
import { classifySender } from '../domain/phone-addresses';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { SenderRepo } from './sender.repo';
import { scopeOf, type Scope } from '../domain/principal';

type SenderRow = NonNullable<Awaited<ReturnType<SenderRepo['getSenderById']>>>;

export const toSenderObject = (row: SenderRow) => ({
  id: row.id,
  object: 'sender' as const,
  livemode: row.livemode,
  sender: row.sender,
  kind: row.kind,
  created_at: row.created_at.toISOString(),
});

/**
 * Alphanumeric sender IDs and short codes an account may send from. Like phone numbers they are
 * registered by operators (CLI, later the console), belong to one account, and are read-only through
 * the API. The platform's own senders (the verification sender) cannot be registered.
 */
export class SendersService {
  private readonly repo = new SenderRepo();

  constructor(private readonly deps: { db: Kysely<DB>; reserved: string[] }) {}

  async registerSender(input: Scope & { sender: string }) {
    const kind = classifySender(input.sender);
    if (kind !== 'alphanumeric' && kind !== 'short_code') {
      throw new AppError('parameter_invalid', 'Invalid sender: an alphanumeric sender ID (1-11 letters, digits or spaces, at least one letter) or a short code (3-8 digits); phone numbers are added as numbers', { param: 'sender' });
    }
    if (this.deps.reserved.some((r) => r.toLowerCase() === input.sender.toLowerCase())) {
      throw new AppError('resource_conflict', `${input.sender} is a sender of the platform itself`, { param: 'sender' });
    }
    const row = await this.repo.insertSender(this.deps.db, { id: newId(IdPrefix.sender), account_id: input.accountId, livemode: input.livemode, sender: input.sender, kind });
    if (!row) throw new AppError('resource_conflict', `${input.sender} is already registered`, { param: 'sender' });
    return toSenderObject(row);
  }

  async getSender(input: Scope & { senderId: string }) {
    const row = await this.repo.getSenderById(this.deps.db, scopeOf(input), input.senderId);
    if (!row) throw notFound('sender', input.senderId);
    return toSenderObject(row);
  }

  async listSenders(input: Scope & { page: PageParams }) {
    const page = await this.repo.listSenders(this.deps.db, scopeOf(input), input.page);
    return { object: 'list' as const, data: page.data.map(toSenderObject), has_more: page.has_more };
  }

  /** The account (and mode) holding `sender` (any case), if any. */
  async findSenderOwner(input: { sender: string }): Promise<Scope | undefined> {
    const row = await this.repo.getSenderBySender(this.deps.db, input.sender);
    return row ? { accountId: row.account_id, livemode: row.livemode } : undefined;
  }
}
