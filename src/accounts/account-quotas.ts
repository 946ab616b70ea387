import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { AppError } from '../domain/errors';
import { AccountQuotaRepo, type CappedList, type QuotaKind, type VolumeKind } from './account-quota.repo';

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
  if (input.limit === undefined) return db.transaction().execute(create);
  const limit = input.limit;
  return insertWithinCap(db, {
    list: input.kind,
    key: input.accountId,
    cap: limit,
    count: (trx) => repo.countObjects(trx, input.accountId, input.kind),
    refusal: (count) => new AppError('account_limit_reached', `This account already has ${count} ${described[input.kind]}, the most allowed (${limit}); delete one before adding another`),
  }, create);
}

/**
 * Runs `insert` only while the list holds fewer than `cap` entries: `count` and `insert` share a
 * transaction under a lock on the list (`key`), so a burst of concurrent inserts cannot pass the cap. At the
 * cap, throws what `refusal` makes of the count.
 */
export async function insertWithinCap<T>(
  db: Kysely<DB>,
  input: { list: CappedList; key: string; cap: number; count: (trx: Transaction<DB>) => Promise<number>; refusal: (count: number) => AppError },
  insert: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await repo.lockCappedList(trx, input.list, input.key);
    const count = await input.count(trx);
    if (count >= input.cap) throw input.refusal(count);
    return insert(trx);
  });
}

const VOLUME_WINDOW_MS = 24 * 3600 * 1000;

const volumeDescribed: Record<VolumeKind, string> = {
  test_batch_messages: 'test-mode batch messages',
  test_batch_callback_messages: 'test-mode batch messages with a status_callback',
};

/**
 * Refuses, inside the caller's transaction (the one that inserts), adding `adding` more of `kind` when the
 * account's last 24 hours already hold `limit` or would pass it: 429 `rate_limited` with Retry-After (when
 * the oldest counted one leaves the window), or 422 `account_limit_reached` when `adding` alone is over the
 * limit (waiting would not help). Checks of one account and kind are serialised (advisory lock).
 */
export async function assertWithinDailyVolume(
  trx: Transaction<DB>,
  input: { accountId: string; kind: VolumeKind; limit: number | undefined; adding: number; param: string; now?: Date },
): Promise<void> {
  if (input.limit === undefined || input.adding === 0) return;
  const what = volumeDescribed[input.kind];
  if (input.adding > input.limit) {
    throw new AppError('account_limit_reached', `A batch may add at most ${input.limit} ${what} per 24 hours; this one adds ${input.adding}`, { param: input.param });
  }
  await repo.lockAccountVolume(trx, input.accountId, input.kind);
  const now = input.now ?? new Date();
  const { count, oldest } = await repo.countVolumeSince(trx, input.accountId, input.kind, new Date(now.getTime() - VOLUME_WINDOW_MS));
  if (count + input.adding <= input.limit) return;
  const retryAfter = Math.max(1, Math.ceil(((oldest?.getTime() ?? now.getTime()) + VOLUME_WINDOW_MS - now.getTime()) / 1000));
  throw new AppError('rate_limited', `This account queued ${count} ${what} in the last 24 hours; this batch adds ${input.adding}, past the most allowed (${input.limit})`, {
    param: input.param,
    headers: { 'Retry-After': String(retryAfter) },
  });
}
