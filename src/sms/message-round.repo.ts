import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { MessageStatus } from '../db/tables/sms';
import { ALLOWED_FROM, type MessageRow, type ReceiptRow } from './message.repo';

type Db = Kysely<DB> | Transaction<DB>;

/** One message's recorded acceptance in a round: carrier, part ids, charge and the journal's attempt. */
export interface AcceptedSubmit {
  id: string;
  carrier: string;
  carrier_message_ids: string[];
  price: string;
  attempt: number;
}

/** One message's receipt fold in a round: where its receipts move it. */
export interface ReceiptMove {
  id: string;
  status: Extract<MessageStatus, 'delivered' | 'undelivered'>;
  error_code: string | null;
  error_message: string | null;
  delivered_at: Date | null;
}

/**
 * The statements of a batch round (MessageRoundSender), each covering every message of the round: the
 * claim, the recorded submits, the receipts already stored and their fold. The same conditional,
 * forward-only updates as MessageRepo's one-message versions (ALLOWED_FROM), so a message another path
 * moved meanwhile is left alone.
 */
export class MessageRoundRepo {
  /** The messages of `ids` still `queued`, in the order given, with their account (the round's pacing). */
  async listQueued(db: Db, ids: string[]): Promise<{ id: string; account_id: string; livemode: boolean }[]> {
    const rows = await db
      .selectFrom('messages')
      .select(['id', 'account_id', 'livemode'])
      .where(sql<boolean>`id = any(${ids}::text[])`)
      .where('status', '=', 'queued')
      .execute();
    const order = new Map(ids.map((id, i) => [id, i]));
    return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }

  /**
   * Every message of `ids` still `queued` becomes `sending`, or `failed` / `recipient_opted_out` when its
   * recipient opted out of the sender (keyword auto-replies exempt). Returns the rows it moved.
   */
  async claimForSending(db: Db, ids: string[]): Promise<MessageRow[]> {
    if (ids.length === 0) return [];
    const result = await sql<MessageRow>`
      with c as (
        select m.id, (m.origin <> 'auto_reply' and exists (
          select 1 from sms_consents c where c.account_id = m.account_id and c.livemode = m.livemode and c.recipient = m."to"
            and c.sender in (m."from", '*') and c.opted_out)) as opted_out
        from messages m where m.id = any(${ids}::text[]) and m.status = 'queued'
        for update of m
      )
      update messages m set
        status = case when c.opted_out then 'failed' else 'sending' end,
        error_code = case when c.opted_out then 'recipient_opted_out' else null end,
        error_message = case when c.opted_out then m."to" || ' opted out of messages from ' || m."from" else null end,
        held_until = null,
        updated_at = now()
      from c where m.id = c.id and m.status = 'queued'
      returning m.*`.execute(db);
    return result.rows;
  }

  /**
   * Records the carriers' acceptances: the part ids, the journal's attempts `accepted`, and each message
   * `sent` with its charge, in one statement. Returns the messages it moved.
   */
  async recordSubmits(db: Db, accepted: AcceptedSubmit[], sent: { price_currency: string; sent_at: Date }): Promise<MessageRow[]> {
    if (accepted.length === 0) return [];
    const input = JSON.stringify(accepted);
    const result = await sql<MessageRow>`
      with v as (
        select * from json_to_recordset(${input}::json) as x(id text, carrier text, carrier_message_ids jsonb, price text, attempt int)
      ), parts as (
        insert into message_parts (carrier, carrier_message_id, message_id, part)
        select v.carrier, p.cid, v.id, (p.ord - 1)::int from v, jsonb_array_elements_text(v.carrier_message_ids) with ordinality p(cid, ord)
        on conflict (carrier, carrier_message_id) do nothing
      ), journal as (
        update sms_submit_attempts a set state = 'accepted', accepted_ids = v.carrier_message_ids, finished_at = ${sent.sent_at}
        from v where a.message_id = v.id and a.attempt = v.attempt
      )
      update messages m set
        status = 'sent', carrier = v.carrier, carrier_message_ids = v.carrier_message_ids, price = v.price,
        price_currency = ${sent.price_currency}, sent_at = ${sent.sent_at}, updated_at = ${sent.sent_at}
      from v where m.id = v.id and m.status = any(${ALLOWED_FROM.sent}::text[])
      returning m.*`.execute(db);
    return result.rows;
  }

  /** The receipts stored for any part of the messages (parts not recorded yet match none), by message. */
  async listReceipts(db: Db, messageIds: string[]): Promise<Map<string, ReceiptRow[]>> {
    const byMessage = new Map<string, ReceiptRow[]>();
    if (messageIds.length === 0) return byMessage;
    const rows = await db
      .selectFrom('message_parts as p')
      .innerJoin('sms_receipts as r', (j) => j.onRef('r.carrier', '=', 'p.carrier').onRef('r.carrier_message_id', '=', 'p.carrier_message_id'))
      .selectAll('r')
      .select('p.message_id')
      .where(sql<boolean>`p.message_id = any(${messageIds}::text[])`)
      .execute();
    for (const { message_id, ...receipt } of rows) {
      const list = byMessage.get(message_id) ?? [];
      list.push(receipt);
      byMessage.set(message_id, list);
    }
    return byMessage;
  }

  /** Moves each message to the status its receipts give, where its current status allows it. */
  async applyReceiptMoves(db: Db, moves: ReceiptMove[]): Promise<MessageRow[]> {
    if (moves.length === 0) return [];
    const result = await sql<MessageRow>`
      with v as (
        select * from json_to_recordset(${JSON.stringify(moves)}::json)
          as x(id text, status text, error_code text, error_message text, delivered_at timestamptz)
      )
      update messages m set
        status = v.status,
        error_code = case when v.status = 'undelivered' then v.error_code else m.error_code end,
        error_message = case when v.status = 'undelivered' then v.error_message else m.error_message end,
        delivered_at = case when v.status = 'delivered' then v.delivered_at else m.delivered_at end,
        updated_at = now()
      from v where m.id = v.id and m.status = any(${ALLOWED_FROM.delivered}::text[])
      returning m.*`.execute(db);
    return result.rows;
  }

  /** Journals many submits about to be handed to carriers (state `submitting`); returns each one's attempt number. */
  async beginAttempts(db: Db, rows: { message_id: string; carrier: string; recipient: string; parts: number }[]): Promise<Map<string, number>> {
    const result = await sql<{ message_id: string; attempt: number }>`
      insert into sms_submit_attempts (message_id, carrier, recipient, parts, attempt, state)
      select v.message_id, v.carrier, v.recipient, v.parts,
        coalesce((select max(a.attempt) from sms_submit_attempts a where a.message_id = v.message_id), 0) + 1, 'submitting'
      from json_to_recordset(${JSON.stringify(rows)}::json) as v(message_id text, carrier text, recipient text, parts int)
      returning message_id, attempt`.execute(db);
    return new Map(result.rows.map((r) => [r.message_id, r.attempt]));
  }
}
