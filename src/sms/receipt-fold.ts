import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { EventsService } from '../webhooks/events.service';
import { emitMessagesUpdated } from './message-events';
import { MessageRoundRepo, type ReceiptMove } from './message-round.repo';
import type { MessageRow, ReceiptRow } from './message.repo';

const NEGATIVE_RECEIPTS = ['undelivered', 'failed', 'expired', 'rejected'];

/** error_code of an undelivered message from the receipt status (docs/sms-error-codes.md). */
const receiptErrorCode = (status: string) =>
  status === 'expired' ? 'message_expired' : status === 'rejected' ? 'carrier_rejected' : 'undeliverable';

const describeReceipt = (r: ReceiptRow) => `Carrier ${r.carrier} reported ${r.status}${r.carrier_error_code ? ` (error ${r.carrier_error_code})` : ''}`;

/**
 * Where a message's stored receipts move it: a negative receipt makes it `undelivered`, else a delivered
 * one `delivered` (some carriers confirm only the first part of a concatenated message: one delivered
 * part is the handset's confirmation). Undefined when they move nothing or the message is not out yet.
 */
export function receiptMove(m: Pick<MessageRow, 'id' | 'status'>, receipts: ReceiptRow[]): ReceiptMove | undefined {
  if (m.status !== 'sent' && m.status !== 'sending') return undefined;
  const negative = receipts.find((r) => NEGATIVE_RECEIPTS.includes(r.status));
  if (negative) {
    return { id: m.id, status: 'undelivered', error_code: receiptErrorCode(negative.status), error_message: describeReceipt(negative), delivered_at: null };
  }
  const delivered = receipts.find((r) => r.status === 'delivered');
  if (delivered) return { id: m.id, status: 'delivered', error_code: null, error_message: null, delivered_at: delivered.received_at };
  return undefined;
}

/**
 * Folds receipts into their messages for the carrier listener, many at once: moves asked for while one
 * fold is being written wait for it and go together in the next (one transaction: the multi-row update
 * and its message.updated events). Under load a fold covers many receipts; a lone one goes at once.
 */
export class ReceiptFolder {
  private readonly rounds = new MessageRoundRepo();
  private queue: { move: ReceiptMove; done: (err?: unknown, row?: MessageRow) => void }[] = [];
  private writing = false;

  constructor(private readonly deps: { db: Kysely<DB>; events: EventsService }) {}

  /** Applies the move (idempotent, forward only) with its event; resolves once committed, with the row when it moved. */
  fold(move: ReceiptMove): Promise<MessageRow | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ move, done: (err, row) => (err ? reject(err) : resolve(row)) });
      if (!this.writing) void this.writeAll();
    });
  }

  private async writeAll(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          const moved = new Map((await this.apply(batch.map((b) => b.move))).map((m) => [m.id, m]));
          for (const b of batch) b.done(undefined, moved.get(b.move.id));
        } catch (err) {
          for (const b of batch) b.done(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** One transaction: the moves and their events (of several moves of one message, the last). */
  async apply(moves: ReceiptMove[]): Promise<MessageRow[]> {
    const unique = [...new Map(moves.map((m) => [m.id, m])).values()];
    if (unique.length === 0) return [];
    const { events } = this.deps;
    return events.transaction(async (tx) => {
      const moved = await this.rounds.applyReceiptMoves(tx, unique);
      await emitMessagesUpdated(events, moved, tx);
      return moved;
    });
  }
}
