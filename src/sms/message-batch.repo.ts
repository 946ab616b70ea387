import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { inScope, type Scope } from '../db/scope';
import type { MessageBatchTable, MessageType } from '../db/tables/sms';
import { paginate, type PageParams } from '../db/pagination';
import type { MessageRow } from './message.repo';
import { SMS_OUTBOX_CHANNEL } from './sms-outbox.repo';

type Db = Kysely<DB> | Transaction<DB>;
export type MessageBatchRow = Selectable<MessageBatchTable>;

/** One recipient's message as the batch queues it (the batch gives the rest). */
export interface BatchMessageRow {
  id: string;
  to: string;
  country: string | null;
  body: string;
  segments: number;
  encoding: string;
  reference: string | null;
}

/** A batch's messages by status; `failed` without the opted-out ones, which are `opted_out`. */
export type BatchCounts = Record<'queued' | 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'opted_out' | 'canceled', number>;

export const emptyCounts = (): BatchCounts => ({ queued: 0, sending: 0, sent: 0, delivered: 0, undelivered: 0, failed: 0, opted_out: 0, canceled: 0 });

/**
 * Message batches and their messages. A batch's messages are queued by one statement (messages and their
 * SMS outbox rows, one notification), in the transaction that stores the batch.
 */
export class MessageBatchRepo {
  async insertBatch(db: Db, row: Insertable<MessageBatchTable>): Promise<MessageBatchRow> {
    return db.insertInto('message_batches').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Queues every message of the batch and its outbox row in one statement, and notifies the dispatcher. */
  async insertQueuedMessages(
    db: Db,
    batch: { id: string; account_id: string; livemode: boolean; from: string; type: MessageType; status_callback: string | null; send_at: Date | null },
    messages: BatchMessageRow[],
    ownWorkflow: boolean,
  ): Promise<number> {
    const result = await sql<{ queued: number }>`
      with v as (
        select * from json_to_recordset(${JSON.stringify(messages)}::json)
          as x(id text, "to" text, country text, body text, segments int, encoding text, reference text)
      ), m as (
        insert into messages (id, account_id, livemode, direction, type, origin, "to", "from", body, status, segments, encoding,
          country, reference, status_callback, send_at, message_batch_id)
        select v.id, ${batch.account_id}, ${batch.livemode}, 'outbound', ${batch.type}, 'api', v."to", ${batch.from}, v.body, 'queued',
          v.segments, v.encoding, v.country, v.reference, ${batch.status_callback}, ${batch.send_at}, ${batch.id}
        from v
        returning id
      ), o as (
        insert into sms_outbox (message_id, own_workflow) select m.id, ${ownWorkflow}::boolean from m returning message_id
      )
      select (select count(*) from o)::int as queued, (select pg_notify(${SMS_OUTBOX_CHANNEL}, '')) as notified`.execute(db);
    return result.rows[0]!.queued;
  }

  async getBatch(db: Db, scope: Scope, id: string): Promise<MessageBatchRow | undefined> {
    return db.selectFrom('message_batches').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  /** Counts of the batches' messages by status (one query for all of them). */
  async countByStatus(db: Db, batchIds: string[]): Promise<Map<string, BatchCounts>> {
    const counts = new Map(batchIds.map((id) => [id, emptyCounts()]));
    if (batchIds.length === 0) return counts;
    const rows = await sql<{ batch_id: string; status: string; opted_out: boolean; n: number }>`
      select message_batch_id as batch_id, status, coalesce(error_code = 'recipient_opted_out', false) as opted_out, count(*)::int as n
      from messages where message_batch_id = any(${batchIds}::text[])
      group by 1, 2, 3`.execute(db);
    for (const r of rows.rows) {
      const c = counts.get(r.batch_id)!;
      const key = r.opted_out ? 'opted_out' : (r.status as keyof BatchCounts);
      if (key in c) c[key] += r.n;
    }
    return counts;
  }

  async listMessages(db: Kysely<DB>, scope: Scope, batchId: string, page: PageParams) {
    const q = db.selectFrom('messages').selectAll().where(inScope(scope)).where('message_batch_id', '=', batchId);
    return paginate(db, 'messages', q, page);
  }

  /** Cancels the batch's messages still `queued` and marks the batch canceled; returns the messages moved. */
  async cancelQueued(db: Db, batchId: string): Promise<MessageRow[]> {
    await db.updateTable('message_batches').set({ canceled_at: new Date() }).where('id', '=', batchId).where('canceled_at', 'is', null).execute();
    return db
      .updateTable('messages')
      .set({ status: 'canceled', held_until: null, updated_at: new Date() })
      .where('message_batch_id', '=', batchId)
      .where('status', '=', 'queued')
      .returningAll()
      .execute();
  }

  /**
   * Marks complete the open batches whose every message is final: delivered, undelivered, failed or
   * canceled, or `sent` longer ago than `receiptTimeoutSeconds` (no receipt will move it any more).
   */
  async completeFinished(db: Db, receiptTimeoutSeconds: number): Promise<MessageBatchRow[]> {
    const result = await sql<MessageBatchRow>`
      update message_batches b set completed_at = now()
      where b.completed_at is null and not exists (
        select 1 from messages m where m.message_batch_id = b.id and (
          m.status in ('queued', 'sending')
          or (m.status = 'sent' and m.sent_at > now() - ${receiptTimeoutSeconds} * interval '1 second')))
      returning b.*`.execute(db);
    return result.rows;
  }
}
