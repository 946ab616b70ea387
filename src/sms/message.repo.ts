import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { MessageStatus, MessageTable, SmsReceiptTable } from '../db/tables/sms';
import { paginate, type PageParams } from '../db/pagination';
import { inScope, type Scope } from '../db/scope';

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

  /** Removes a message that never left `queued` (its request failed before the send was dispatched). */
  async deleteQueuedMessage(db: Db, id: string) {
    await db.deleteFrom('messages').where('id', '=', id).where('status', '=', 'queued').execute();
  }

  async getMessageById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('messages').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async getMessage(db: Db, id: string) {
    return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listMessages(db: Kysely<DB>, scope: Scope, page: PageParams, filter: MessageListFilter) {
    let q = db.selectFrom('messages').selectAll().where(inScope(scope));
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

  /**
   * One round trip for the hot path: a queued message becomes `sending`, or `failed` with
   * `recipient_opted_out` when its recipient opted out of the sender (keyword auto-replies exempt).
   * Undefined when the message was not queued any more.
   */
  async claimForSending(db: Db, id: string) {
    const optedOut = sql<boolean>`(origin <> 'auto_reply' and exists (
      select 1 from sms_consents c where c.account_id = messages.account_id and c.livemode = messages.livemode and c.recipient = messages."to"
        and c.sender in (messages."from", '*') and c.opted_out))`;
    return db
      .updateTable('messages')
      .set({
        status: sql`case when ${optedOut} then 'failed' else 'sending' end`,
        error_code: sql`case when ${optedOut} then 'recipient_opted_out' else null end`,
        error_message: sql`case when ${optedOut} then messages."to" || ' opted out of messages from ' || messages."from" else null end`,
        held_until: null,
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
  }

  /** Records the carrier's acceptance in one statement: the part ids, then `sent` with the charge. */
  async recordSubmit(
    db: Db,
    id: string,
    sent: { carrier: string; carrier_message_ids: string[]; price: string; price_currency: string; sent_at: Date },
    /**
     * The submit journal's attempt the carrier accepted, marked `accepted` by the same statement: attempt
     * N, or 0 for whatever was open (`submitting`/`uncertain`: a receipt adopted an unanswered submit).
     */
    journal: { attempt: number },
  ) {
    const parts = sent.carrier_message_ids.map((cid, part) => ({ carrier: sent.carrier, carrier_message_id: cid, message_id: id, part }));
    return db
      .with('parts', (qb) => qb.insertInto('message_parts').values(parts).onConflict((oc) => oc.columns(['carrier', 'carrier_message_id']).doNothing()))
      .with('journal', (qb) => {
        const accepted = qb
          .updateTable('sms_submit_attempts')
          .set({ state: 'accepted', accepted_ids: JSON.stringify(sent.carrier_message_ids), finished_at: new Date() })
          .where('message_id', '=', id);
        return journal.attempt > 0 ? accepted.where('attempt', '=', journal.attempt) : accepted.where('state', 'in', ['submitting', 'uncertain']);
      })
      .updateTable('messages')
      .set({
        status: 'sent',
        carrier: sent.carrier,
        carrier_message_ids: JSON.stringify(sent.carrier_message_ids),
        price: sent.price,
        price_currency: sent.price_currency,
        sent_at: sent.sent_at,
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .where('status', 'in', ALLOWED_FROM.sent)
      .returningAll()
      .executeTakeFirst();
  }

  /** Receipts already stored for any part of a message (one query; parts not recorded yet match none). */
  async listReceiptsOfMessage(db: Db, messageId: string) {
    return db
      .selectFrom('message_parts as p')
      .innerJoin('sms_receipts as r', (j) => j.onRef('r.carrier', '=', 'p.carrier').onRef('r.carrier_message_id', '=', 'p.carrier_message_id'))
      .selectAll('r')
      .where('p.message_id', '=', messageId)
      .execute();
  }

  async setHeldUntil(db: Db, id: string, heldUntil: Date | null) {
    await db.updateTable('messages').set({ held_until: heldUntil, updated_at: new Date() }).where('id', '=', id).where('status', '=', 'queued').execute();
  }

  /**
   * Stores a receipt (a repeated one keeps the first unless that was `unknown`) and returns the message
   * it belongs to with every receipt of its parts now stored, in one round trip; undefined while the
   * submit is not recorded yet.
   */
  async storeReceipt(
    db: Db,
    row: { carrier: string; carrier_message_id: string; status: string; carrier_error_code: string | null; received_at: Date; handset?: string | null },
  ): Promise<{ message: MessageRow; receipts: ReceiptRow[] } | undefined> {
    const found = await db
      .with('stored', (qb) =>
        qb
          .insertInto('sms_receipts')
          .values(row)
          .onConflict((oc) =>
            oc
              .columns(['carrier', 'carrier_message_id'])
              .doUpdateSet({ status: row.status, carrier_error_code: row.carrier_error_code, received_at: row.received_at })
              .where(sql.ref('sms_receipts.status'), '=', 'unknown'),
          ),
      )
      .selectFrom('message_parts as p')
      .innerJoin('messages as m', 'm.id', 'p.message_id')
      .selectAll('m')
      // The receipts of the message's parts as they were before this statement (its own insert is not
      // visible to it); this receipt is merged in below the way the upsert above stores it.
      .select(
        sql<ReceiptRow[]>`(select coalesce(json_agg(r.*), '[]'::json) from message_parts p2
          join sms_receipts r on r.carrier = p2.carrier and r.carrier_message_id = p2.carrier_message_id
          where p2.message_id = m.id)`.as('stored_receipts'),
      )
      .where('p.carrier', '=', row.carrier)
      .where('p.carrier_message_id', '=', row.carrier_message_id)
      .executeTakeFirst();
    if (!found) return undefined;
    const { stored_receipts: before, ...message } = found;
    const receipts = before.map((r) => ({ ...r, received_at: new Date(r.received_at) }));
    const same = receipts.findIndex((r) => r.carrier === row.carrier && r.carrier_message_id === row.carrier_message_id);
    if (same < 0) receipts.push({ ...row, handset: row.handset ?? null });
    else if (receipts[same]!.status === 'unknown') receipts[same] = { ...row, handset: row.handset ?? null };
    return { message: message as MessageRow, receipts };
  }

  /** The message a carrier message id belongs to (undefined while its submit is not recorded). */
  async findMessageOfPart(db: Db, carrier: string, carrierMessageId: string) {
    return db
      .selectFrom('message_parts as p')
      .innerJoin('messages as m', 'm.id', 'p.message_id')
      .selectAll('m')
      .where('p.carrier', '=', carrier)
      .where('p.carrier_message_id', '=', carrierMessageId)
      .executeTakeFirst();
  }

  /** The account that last sent from `from` to `to` (routes inbound replies to sender IDs and short codes). */
  /** Every account that sent from `from` to `to` (consent for an unowned sender). */
  async findAccountsOfConversation(db: Db, from: string, to: string, livemode: boolean): Promise<string[]> {
    const rows = await db
      .selectFrom('messages')
      .select('account_id')
      .distinct()
      .where('livemode', '=', livemode)
      .where('direction', '=', 'outbound')
      .where('from', '=', from)
      .where('to', '=', to)
      .execute();
    return rows.map((r) => r.account_id);
  }

  async setConsent(db: Db, row: { account_id: string; livemode: boolean; sender: string; recipient: string; opted_out: boolean; keyword: string }) {
    await db
      .insertInto('sms_consents')
      .values({ ...row, updated_at: new Date() })
      .onConflict((oc) => oc.columns(['account_id', 'livemode', 'recipient', 'sender']).doUpdateSet({ opted_out: row.opted_out, keyword: row.keyword, updated_at: new Date() }))
      .execute();
  }

  /** Whether `recipient` opted out of messages from `sender` (or of every sender of the account). */
  async isOptedOut(db: Db, scope: Scope, sender: string, recipient: string): Promise<boolean> {
    const row = await db
      .selectFrom('sms_consents')
      .select('opted_out')
      .where(inScope(scope))
      .where('recipient', '=', recipient)
      .where('sender', 'in', [sender, '*'])
      .where('opted_out', '=', true)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The number among `to` that `from` last wrote to (an inbound message of the account), if any. */
  async findLatestInboundTo(db: Db, scope: Scope, from: string, to: string[]): Promise<string | undefined> {
    if (to.length === 0) return undefined;
    const row = await db
      .selectFrom('messages')
      .select('to')
      .where(inScope(scope))
      .where('direction', '=', 'inbound')
      .where('from', '=', from)
      .where('to', 'in', to)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.to;
  }

  async clearConsent(db: Db, scope: Scope, sender: string, recipient: string) {
    await db.deleteFrom('sms_consents').where(inScope(scope)).where('sender', '=', sender).where('recipient', '=', recipient).execute();
  }



  /** Drops the encrypted text of a message once it is no longer needed (submitted or failed). */
  async clearSealedBody(db: Db, id: string) {
    await db.updateTable('messages').set({ body_sealed: null }).where('id', '=', id).where('body_sealed', 'is not', null).execute();
  }
}
