import type { Scope } from '../domain/principal';
import type { ConversationEventsNotifier } from './conversation-events.notifier';
import type { InboxCounts, InboxReader, InboxRow, InboxService } from './inbox.service';

/** One event of an inbox stream: conversations as they now are (with `alert` for the team), then the tab counts. */
export type InboxStreamEvent =
  | { event: 'inbox.conversation'; row: InboxRow; alert: boolean }
  | { event: 'inbox.counts'; counts: InboxCounts };

/** Conversation ids whose scope this process has learnt (they never change scope); cleared past this size. */
const MAX_KNOWN = 100_000;
/** Changes arriving within this long are read together. */
const BATCH_MS = 25;

/**
 * The inbox of one account and mode as a stream (GET /console/inbox/events): built on the conversation
 * events notifier's one LISTEN connection per process; a notification names a conversation, which is read
 * (with the reader's unread state) only when it is in the stream's scope; every process learns which
 * conversations are another scope's and skips them without a query. A quiet stream, or one whose listener
 * reconnected, reads what changed since it last looked. `alert`: the conversation needs the team now (a
 * handoff, or a customer message while a person holds it) since the stream opened or last alerted for it.
 */
export class InboxStreamService {
  private readonly known = new Map<string, string>();

  constructor(private readonly deps: { notifier: ConversationEventsNotifier; inbox: InboxService }) {}

  async *streamInbox(input: Scope & { who: InboxReader; since: Date; signal: AbortSignal }): AsyncGenerator<InboxStreamEvent> {
    const key = `${input.accountId}:${input.livemode}`;
    const pending = new Set<string>();
    let resync = false;
    let wake: (() => void) | undefined;
    const off = this.deps.notifier.onAnyConversation((id) => {
      if (id === '') resync = true;
      else if ((this.known.get(id) ?? key) === key) pending.add(id);
      else return;
      wake?.();
    });
    const alerted = new Map<string, number>();
    let since = input.since;
    try {
      while (!input.signal.aborted) {
        if (pending.size === 0 && !resync) {
          const timedOut = await new Promise<boolean>((resolve) => {
            const done = (t: boolean) => {
              clearTimeout(timer);
              input.signal.removeEventListener('abort', onAbort);
              wake = undefined;
              resolve(t);
            };
            const onAbort = () => done(false);
            const timer = setTimeout(() => done(true), this.deps.notifier.idleReadMs);
            input.signal.addEventListener('abort', onAbort, { once: true });
            wake = () => done(false);
          });
          if (input.signal.aborted) return;
          if (timedOut) resync = true;
          else await new Promise((r) => setTimeout(r, BATCH_MS));
        }
        // Taken before any await: a change arriving while this batch is read waits for the next one.
        const woken = [...pending];
        pending.clear();
        const ids = await this.ownIds(woken, key);
        const readAt = new Date();
        const catchUp = resync;
        resync = false;
        const rows = catchUp
          ? await this.deps.inbox.changedSince({ ...input, since: new Date(since.getTime() - 1000) })
          : await this.deps.inbox.inboxRows({ ...input, ids });
        since = readAt;
        for (const row of rows) {
          const at = row.unread_at?.getTime() ?? 0;
          const alert = row.status === 'handed_off' && !row.test && at > input.since.getTime() && at > (alerted.get(row.id) ?? 0);
          if (alert) alerted.set(row.id, at);
          yield { event: 'inbox.conversation', row, alert };
        }
        if (rows.length > 0) yield { event: 'inbox.counts', counts: await this.deps.inbox.counts(input) };
      }
    } finally {
      off();
    }
  }

  /** The ids that are this scope's conversations; the scopes of ids never seen are read once per process. */
  private async ownIds(ids: string[], key: string): Promise<string[]> {
    const unknown = ids.filter((id) => !this.known.has(id));
    if (unknown.length > 0) {
      if (this.known.size > MAX_KNOWN) this.known.clear();
      for (const [id, scope] of await this.deps.inbox.scopesOf(unknown)) this.known.set(id, scope);
    }
    return ids.filter((id) => this.known.get(id) === key);
  }
}
