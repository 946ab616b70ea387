import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { newId, IdPrefix } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import type { BusinessHours } from './business-hours';
import { QueueRepo, type QueueRow } from './queue.repo';
import { toQueueObject, type QueueObject } from './queue.schemas';

export interface QueueInput {
  name: string;
  time_zone: string;
  weekly_hours?: Record<string, string[] | undefined> | null;
  holidays?: string[];
  teammate_ids?: string[];
}

/** The stored weekly hours: days with intervals only (an empty day is a closed day, like a missing one). */
function weeklyOf(hours: QueueInput['weekly_hours']): string | null {
  if (!hours) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(hours).filter(([, v]) => v !== undefined)));
}

/**
 * Handoff queues of an account: the name an agent hands off to (`handoff.default_queue`) with its business
 * hours (IANA time zone, weekly hours, holidays). A queue nobody configured is always open.
 */
export class QueuesService {
  private readonly repo = new QueueRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  /** The teammate ids as given, once each, every one a console user of the account; otherwise a 422 naming the first stranger. */
  private async teammatesOf(accountId: string, ids: string[] | undefined): Promise<string[] | undefined> {
    if (ids === undefined) return undefined;
    const unique = [...new Set(ids)].sort();
    if (unique.length === 0) return [];
    const known = new Set((await this.deps.db.selectFrom('console_users').select('id').where('account_id', '=', accountId).where('id', 'in', unique).execute()).map((r) => r.id));
    const stranger = unique.find((id) => !known.has(id));
    if (stranger !== undefined) throw new AppError('parameter_unprocessable', `No teammate '${stranger}' in this account`, { param: 'teammate_ids' });
    return unique;
  }

  private async toObject(row: QueueRow): Promise<QueueObject> {
    return toQueueObject(row, (await this.repo.membersOf(this.deps.db, [row.id])).get(row.id) ?? []);
  }

  async createQueue(input: Scope & QueueInput): Promise<QueueObject> {
    const teammates = await this.teammatesOf(input.accountId, input.teammate_ids);
    const row = await this.deps.db.transaction().execute(async (tx) => {
      const inserted = await this.repo.insert(tx, {
      id: newId(IdPrefix.queue),
      account_id: input.accountId,
      livemode: input.livemode,
      name: input.name,
      time_zone: input.time_zone,
      weekly_hours: weeklyOf(input.weekly_hours),
      holidays: JSON.stringify([...new Set(input.holidays ?? [])].sort()),
      });
      if (inserted && teammates) await this.repo.setMembers(tx, inserted.id, teammates);
      return inserted;
    });
    if (!row) throw new AppError('resource_conflict', `A queue named '${input.name}' exists already`, { param: 'name' });
    return this.toObject(row);
  }

  async listQueues(input: Scope) {
    const rows = await this.repo.list(this.deps.db, scopeOf(input));
    const members = await this.repo.membersOf(this.deps.db, rows.map((r) => r.id));
    return { object: 'list' as const, data: rows.map((r) => toQueueObject(r, members.get(r.id) ?? [])), has_more: false };
  }

  async getQueue(input: Scope & { queueId: string }): Promise<QueueObject> {
    const row = await this.repo.get(this.deps.db, scopeOf(input), input.queueId);
    if (!row) throw notFound('queue', input.queueId);
    return this.toObject(row);
  }

  async updateQueue(input: Scope & { queueId: string } & Partial<QueueInput>): Promise<QueueObject> {
    const { db } = this.deps;
    const scope = scopeOf(input);
    if (input.name !== undefined) {
      const other = await this.repo.getByName(db, scope, input.name);
      if (other && other.id !== input.queueId) throw new AppError('resource_conflict', `A queue named '${input.name}' exists already`, { param: 'name' });
    }
    const teammates = await this.teammatesOf(input.accountId, input.teammate_ids);
    const row = await db.transaction().execute(async (tx) => {
      const updated = await this.repo.update(tx, scope, input.queueId, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.time_zone !== undefined ? { time_zone: input.time_zone } : {}),
        ...(input.weekly_hours !== undefined ? { weekly_hours: weeklyOf(input.weekly_hours) } : {}),
        ...(input.holidays !== undefined ? { holidays: JSON.stringify([...new Set(input.holidays)].sort()) } : {}),
      });
      if (updated && teammates) await this.repo.setMembers(tx, updated.id, teammates);
      return updated;
    }).catch((err: unknown) => {
      // Renamed to a name another request took in between: the unique index says so.
      if ((err as { code?: string }).code === '23505') throw new AppError('resource_conflict', `A queue named '${input.name}' exists already`, { param: 'name' });
      throw err;
    });
    if (!row) throw notFound('queue', input.queueId);
    return this.toObject(row);
  }

  async deleteQueue(input: Scope & { queueId: string }) {
    const gone = await this.repo.delete(this.deps.db, scopeOf(input), input.queueId);
    if (!gone) throw notFound('queue', input.queueId);
    return { id: gone.id, object: 'queue', deleted: true as const };
  }

  /** The business hours of the queue named `name` (undefined: not configured, always open); in `tx` when given. */
  async hoursOf(scope: Scope, name: string, tx?: Transaction<DB>): Promise<BusinessHours | undefined> {
    const row = await this.repo.getByName(tx ?? this.deps.db, scope, name);
    return row ? hoursOfRow(row) : undefined;
  }
}

export const hoursOfRow = (row: QueueRow): BusinessHours => ({ timeZone: row.time_zone, weekly: row.weekly_hours, holidays: row.holidays });
