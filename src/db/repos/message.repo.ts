import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../schema';
import type { MessageStatus, MessageTable, SmsReceiptTable } from '../tables/sms';
import { paginate, type PageParams } from './pagination';

type Db = Kysely<DB> | Transaction<DB>;
export type MessageRow = Selectable<MessageTable>;
export type ReceiptRow = Selectable<SmsReceiptTable>;

/**
 * Statuses a message may move to from each status: forward only. `failed` is reached only before the
 * carrier took the message; `delivered`/`undelivered` only after it was handed over.
 */
export const ALLOWED_FROM: Record<MessageStatus, MessageStatus[]> = {
  queued: [],
  sending: ['queued'],
  sent: ['queued', 'sending'],
  delivered: ['sending', 'sent'],
  undelivered: ['sending', 'sent'],
  failed: ['queued', 'sending'],
  canceled: ['queued'],
  received: [],
};

export interface MessageListFilter {
  to?: string;
  from?: string;
  status?: MessageStatus;
  direction?: 'inbound' | 'outbound';
}

export class MessageRepo {
  async insertMessage(db: Db, row: Insertable<MessageTable>) {
    return db
      .insertInto('messages')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  async getMessageById(db: Db, accountId: string, id: string) {
    return db.selectFrom('messages').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  }

  async getMessage(db: Db, id: string) {
    return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listMessages(db: Kysely<DB>, accountId: string, page: PageParams, filter: MessageListFilter) {
    let q = db.selectFrom('messages').selectAll().where('account_id', '=', accountId);
    if (filter.to) q = q.where('to', '=', filter.to);
    if (filter.from) q = q.where('from', '=', filter.from);
    if (filter.status) q = q.where('status', '=', filter.status);
    if (filter.direction) q = q.where('direction', '=', filter.direction);
    return paginate(db, 'messages', q, page);
  }

  /**
   * Moves a message to `status` if its current status allows it (statuses only move forward); returns
   * the updated row, or undefined when the transition was not allowed (already there or beyond).
   */
  async transitionMessage(
    db: Db,
    id: string,
    status: MessageStatus,
    patch: {
      error_code?: string | null;
      error_message?: string | null;
      price?: string | null;
      price_currency?: string | null;
      carrier?: string | null;
      held_until?: Date | null;
      carrier_message_ids?: string[];
      sent_at?: Date;
      delivered_at?: Date;
    } = {},
  ) {
    const { carrier_message_ids, ...rest } = patch;
    return db
      .updateTable('messages')
      .set({
        ...rest,
        ...(carrier_message_ids ? { carrier_message_ids: JSON.stringify(carrier_message_ids) } : {}),
        status,
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .where('status', 'in', ALLOWED_FROM[status])
      .returningAll()
      .executeTakeFirst();
  }

  async setHeldUntil(db: Db, id: string, heldUntil: Date | null) {
    await db.updateTable('messages').set({ held_until: heldUntil, updated_at: new Date() }).where('id', '=', id).where('status', '=', 'queued').execute();
  }

  async insertParts(db: Db, rows: { carrier: string; carrier_message_id: string; message_id: string; part: number }[]) {
    if (rows.length === 0) return;
    await db.insertInto('message_parts').values(rows).onConflict((oc) => oc.columns(['carrier', 'carrier_message_id']).doNothing()).execute();
  }

  async findMessageIdByCarrierId(db: Db, carrier: string, carrierMessageId: string) {
    const row = await db
      .selectFrom('message_parts')
      .select('message_id')
      .where('carrier', '=', carrier)
      .where('carrier_message_id', '=', carrierMessageId)
      .executeTakeFirst();
    return row?.message_id;
  }

  /** Stores a receipt; a repeated one (same carrier id) keeps the first unless it was still unknown. */
  async insertReceipt(db: Db, row: { carrier: string; carrier_message_id: string; status: string; carrier_error_code: string | null; received_at: Date }) {
    await db
      .insertInto('sms_receipts')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['carrier', 'carrier_message_id']).doUpdateSet({
          status: row.status,
          carrier_error_code: row.carrier_error_code,
          received_at: row.received_at,
          applied_at: null,
        }).where(sql.ref('sms_receipts.status'), 'in', ['unknown']),
      )
      .execute();
  }

  /** Receipts for every part of a message, with the part count. */
  async listReceiptsForMessage(db: Db, messageId: string) {
    const parts = await db.selectFrom('message_parts').select(['carrier', 'carrier_message_id', 'part']).where('message_id', '=', messageId).execute();
    if (parts.length === 0) return { parts: 0, receipts: [] as ReceiptRow[] };
    const receipts = await db
      .selectFrom('sms_receipts')
      .selectAll()
      .where(({ eb, refTuple, tuple }) =>
        eb(refTuple('carrier', 'carrier_message_id'), 'in', parts.map((p) => tuple(p.carrier, p.carrier_message_id))),
      )
      .execute();
    return { parts: parts.length, receipts };
  }

  async markReceiptsApplied(db: Db, keys: { carrier: string; carrier_message_id: string }[]) {
    if (keys.length === 0) return;
    await db
      .updateTable('sms_receipts')
      .set({ applied_at: new Date() })
      .where(({ eb, refTuple, tuple }) => eb(refTuple('carrier', 'carrier_message_id'), 'in', keys.map((k) => tuple(k.carrier, k.carrier_message_id))))
      .where('applied_at', 'is', null)
      .execute();
  }

  /** The account that last sent from `from` to `to` (routes inbound replies to sender IDs and short codes). */
  async findAccountOfConversation(db: Db, from: string, to: string) {
    const row = await db
      .selectFrom('messages')
      .select('account_id')
      .where('direction', '=', 'outbound')
      .where('from', '=', from)
      .where('to', '=', to)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.account_id;
  }

  async setConsent(db: Db, row: { account_id: string; sender: string; recipient: string; opted_out: boolean; keyword: string }) {
    await db
      .insertInto('sms_consents')
      .values({ ...row, updated_at: new Date() })
      .onConflict((oc) => oc.columns(['account_id', 'recipient', 'sender']).doUpdateSet({ opted_out: row.opted_out, keyword: row.keyword, updated_at: new Date() }))
      .execute();
  }

  async clearConsent(db: Db, accountId: string, sender: string, recipient: string) {
    await db.deleteFrom('sms_consents').where('account_id', '=', accountId).where('sender', '=', sender).where('recipient', '=', recipient).execute();
  }

  /** True when `recipient` opted out of `sender` (or of every sender of the account with STOPALL). */
  async isOptedOut(db: Db, accountId: string, sender: string, recipient: string) {
    const row = await db
      .selectFrom('sms_consents')
      .select('opted_out')
      .where('account_id', '=', accountId)
      .where('recipient', '=', recipient)
      .where('sender', 'in', [sender, '*'])
      .where('opted_out', '=', true)
      .limit(1)
      .executeTakeFirst();
    return Boolean(row);
  }
}
