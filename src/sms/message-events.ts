import { derivedId, IdPrefix } from '../domain/ids';
import type { EmitEventInput, EventsService, EventTransaction } from '../webhooks/events.service';
import type { MessageRow } from './message.repo';
import { toMessageObject } from './message.schemas';

/** message.updated of a message at its current status: to the status_callback, or the account's endpoints. */
const messageUpdated = (m: MessageRow): EmitEventInput & { eventId: string } => ({
  accountId: m.account_id, livemode: m.livemode,
  type: 'message.updated',
  data: toMessageObject(m),
  eventId: derivedId(IdPrefix.event, m.id, 'message.updated', m.status),
  callbackUrl: m.status_callback ?? undefined,
});

/**
 * message.updated to the status_callback, or the account's endpoints; one event per status. Pass the
 * transaction that moved the status, so the status and its event commit together.
 */
export async function emitMessageUpdated(events: EventsService, m: MessageRow, tx?: EventTransaction): Promise<void> {
  await events.emit(messageUpdated(m), { tx });
}

/** message.updated for many messages in one statement (a batch round), each with its own new status. */
export async function emitMessagesUpdated(events: EventsService, rows: MessageRow[], tx?: EventTransaction): Promise<void> {
  await events.emitMany(rows.map(messageUpdated), { tx });
}
