import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { AppError } from '../domain/errors';
import { AccountQuotaRepo, type QuotaKind } from './account-quota.repo';

const repo = new AccountQuotaRepo();

const described: Record<QuotaKind, string> = { webhook_endpoints: 'webhook endpoints', api_sources: 'api knowledge sources' };

/**
 * Runs `create` only while the account holds fewer than `limit` objects of `kind`: the count and the
 * insert share a transaction under a per-account lock, so concurrent creates cannot overshoot. At the
 * limit: 422 `account_limit_reached`, naming it.
 */
export async function createWithinQuota<T>(
  db: Kysely<DB>,
  input: { accountId: string; kind: QuotaKind; limit: number | undefined },
  create: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (input.limit !== undefined) {
      await repo.lockAccountQuota(trx, input.accountId, input.kind);
      const count = await repo.countObjects(trx, input.accountId, input.kind);
      if (count >= input.limit) {
        throw new AppError(
          'account_limit_reached',
          `This account already has ${count} ${described[input.kind]}, the most allowed (${input.limit}); delete one before adding another`,
        );
      }
    }
    return create(trx);
  });
}
