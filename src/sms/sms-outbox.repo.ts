import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { MessageTable } from '../db/tables/sms';
import type { MessageRow } from './message.repo';

type Db = Kysely<DB> | Transaction<DB>;

/** The Postgres channel a commit that queued messages notifies (the SMS dispatcher LISTENs on it). */
export const SMS_OUTBOX_CHANNEL = 'sms_outbox';

/** An outbox row a dispatcher holds, with what starting its workflow needs. */
export interface ClaimedOutboxMessage {
  message_id: string;
  own_workflow: boolean;
  batch_id: string;
  send_at: Date | null;
  type: MessageRow['type'];
  account_id: string;
}

/** An unclaimed row as read by a claim, before it is put in a workflow. */
export type UnclaimedOutboxMessage = Omit<ClaimedOutboxMessage, 'batch_id'> & { status: MessageRow['status'] };

/**
 * The SMS outbox (sms_outbox): a message and its outbox row are written by one statement, and the commit
 * notifies SMS_OUTBOX_CHANNEL. A dispatcher claims rows with a lease, names the workflow each goes in
 * (`batch_id`), starts it, then deletes the rows; a claim whose lease ran out is taken over under the same
 * workflow names, so a message is only ever in one workflow.
 */
export class SmsOutboxRepo {
  /**
   * Inserts the message and its outbox row, and notifies the dispatcher. Undefined when a message with
   * this id exists already (a retried internal send): it was queued with its first insert.
   */
  async insertQueuedMessage(db: Db, row: Insertable<MessageTable>, ownWorkflow: boolean): Promise<MessageRow | undefined> {
    const inserted = await db
      .with('m', (qb) => qb.insertInto('messages').values(row).onConflict((oc) => oc.column('id').doNothing()).returningAll())
      .with('o', (qb) =>
        qb
          .insertInto('sms_outbox')
          .columns(['message_id', 'own_workflow'])
          .expression((eb) => eb.selectFrom('m').select(['m.id', sql<boolean>`${ownWorkflow}::boolean`.as('own_workflow')]))
          .returning('message_id'),
      )
      .selectFrom('m')
      .selectAll('m')
      .select(sql<string>`(select pg_notify(${SMS_OUTBOX_CHANNEL}, '') from o)`.as('notified'))
      .executeTakeFirst();
    if (!inserted) return undefined;
    const { notified: _, ...message } = inserted;
    return message as MessageRow;
  }

  /**
   * Claims up to `limit` unclaimed rows, oldest first (rows another dispatcher is claiming are skipped),
   * puts each in the workflow `assign` names, and holds them for `leaseMs`. One transaction.
   */
  async claimUnclaimed(
    db: Kysely<DB>,
    opts: { limit: number; leaseMs: number; assign: (rows: UnclaimedOutboxMessage[]) => Map<string, string> },
  ): Promise<(ClaimedOutboxMessage & { status: MessageRow['status'] })[]> {
    return db.transaction().execute(async (tx) => {
      const rows = await tx
        .selectFrom('sms_outbox as o')
        .innerJoin('messages as m', 'm.id', 'o.message_id')
        .select(['o.message_id', 'o.own_workflow', 'm.send_at', 'm.type', 'm.account_id', 'm.status'])
        .where('o.batch_id', 'is', null)
        .orderBy('o.created_at')
        .orderBy('o.message_id')
        .limit(opts.limit)
        .forUpdate('o')
        .skipLocked()
        .execute();
      if (rows.length === 0) return [];
      const batchOf = opts.assign(rows);
      const ids = rows.map((r) => r.message_id);
      await sql`
        update sms_outbox o set batch_id = v.batch_id, lease_until = now() + ${opts.leaseMs} * interval '1 millisecond'
        from (select unnest(${ids}::text[]) as message_id, unnest(${ids.map((id) => batchOf.get(id)!)}::text[]) as batch_id) v
        where o.message_id = v.message_id`.execute(tx);
      return rows.map((r) => ({ ...r, batch_id: batchOf.get(r.message_id)! }));
    });
  }

  /** Takes over claimed rows whose lease ran out (their dispatcher died or could not start them). */
  async claimExpired(db: Db, leaseMs: number): Promise<(ClaimedOutboxMessage & { status: MessageRow['status'] })[]> {
    const result = await sql<ClaimedOutboxMessage & { status: MessageRow['status'] }>`
      with taken as (
        update sms_outbox set lease_until = now() + ${leaseMs} * interval '1 millisecond'
        where batch_id is not null and lease_until < now()
        returning message_id, own_workflow, batch_id, created_at
      )
      select t.message_id, t.own_workflow, t.batch_id, m.send_at, m.type, m.account_id, m.status
      from taken t join messages m on m.id = t.message_id
      order by t.created_at, t.message_id`.execute(db);
    return result.rows;
  }

  /** Gives claimed workflows back to be started again in `delayMs` (Temporal was away), names kept. */
  async postpone(db: Db, batchIds: string[], delayMs: number) {
    if (batchIds.length === 0) return;
    await db
      .updateTable('sms_outbox')
      .set({ lease_until: sql`now() + ${delayMs} * interval '1 millisecond'` })
      .where('batch_id', 'in', batchIds)
      .execute();
  }

  /** The workflows were started (or existed already): their rows are done. */
  async deleteBatches(db: Db, batchIds: string[]) {
    if (batchIds.length === 0) return;
    await db.deleteFrom('sms_outbox').where('batch_id', 'in', batchIds).execute();
  }

  /** Rows waiting for a workflow (tests, metrics). */
  async countWaiting(db: Db): Promise<number> {
    const row = await db.selectFrom('sms_outbox').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    return row.n;
  }
}
