import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import { pgListen, type PgListener } from '../platform/pg-listen';

/** The channel conversation_events' trigger NOTIFYs on (`<conversation id>:<seq>`); typing uses it too. */
const CHANNEL = 'converse_conversation_events';

/** An ephemeral event a stream carries without storing it (a person typing in the console). */
export interface TypingSignal {
  role: 'human';
  /** How long the indicator stays on unless renewed. */
  expires_in_ms: number;
}

/** A stored reply.delta as its notification carried it (a caught-up stream sends it without reading it back). */
export interface NotifiedDelta {
  seq: number;
  data: Record<string, unknown>;
}

/** What woke a stream: stored events to read, and ephemeral typing signals (in arrival order). */
export interface StreamWake {
  /** Stored events to read (a notification without its event, a reconnection, a timeout). */
  stored: boolean;
  /** reply.delta events carried by their notifications, in arrival order. */
  deltas: NotifiedDelta[];
  typing: TypingSignal[];
  /** The notifier closed (the process is stopping): the stream ends, the client resumes elsewhere. */
  ended: boolean;
}

/** One open stream's subscription to its conversation's notifications. */
export interface ConversationSubscription {
  /** Resolves at the next notification (at once if one came since the last wait), after `ms`, or on abort. */
  wait(ms: number, signal?: AbortSignal): Promise<StreamWake>;
  close(): void;
}

class Subscription implements ConversationSubscription {
  stored = false;
  ended = false;
  typing: TypingSignal[] = [];
  deltas: NotifiedDelta[] = [];
  private wake?: () => void;

  constructor(private readonly onClose: (s: Subscription) => void) {}

  notify(typing?: TypingSignal, ended = false, delta?: NotifiedDelta) {
    if (typing) this.typing.push(typing);
    else if (ended) this.ended = true;
    else if (delta) this.deltas.push(delta);
    else this.stored = true;
    this.wake?.();
  }

  async wait(ms: number, signal?: AbortSignal): Promise<StreamWake> {
    let timedOut = false;
    if (!this.stored && this.typing.length === 0 && this.deltas.length === 0 && !this.ended && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(() => {
          timedOut = true;
          done();
        }, ms);
        signal?.addEventListener('abort', done, { once: true });
        this.wake = done;
      });
    }
    // A timeout counts as "read again" (a notification may have been lost while the listener reconnected).
    const woke: StreamWake = { stored: this.stored || timedOut, deltas: this.deltas, typing: this.typing, ended: this.ended };
    this.stored = false;
    this.typing = [];
    this.deltas = [];
    return woke;
  }

  close() {
    this.onClose(this);
  }
}

/**
 * Wakes open conversation streams when their conversation's stream grows. One LISTEN connection per
 * process (platform/pg-listen, reconnecting) fans out to every open stream of the process by conversation
 * id; writers need nothing (the conversation_events trigger NOTIFYs on commit), so a message written by
 * another API process or by the worker wakes the streams here. Without a Postgres server (embedded PGlite,
 * one process) there is no listener: streams read again every second instead.
 */
export class ConversationEventsNotifier {
  private readonly subscribers = new Map<string, Set<Subscription>>();
  /** Every conversation's changes (the inbox streams): called with the conversation id, never for typing or deltas. */
  private readonly anyConversation = new Set<(conversationId: string) => void>();
  private listener?: PgListener;

  constructor(private readonly deps: { db: Kysely<DB>; databaseUrl?: string; log: Logger }) {}

  /** How long an idle stream waits before reading again without a notification. */
  get idleReadMs(): number {
    return this.deps.databaseUrl ? 30_000 : 1000;
  }

  /** Starts the process's listener (a second call does nothing); resolves once listening, or after 5 s. */
  async listen(): Promise<void> {
    if (!this.deps.databaseUrl || this.listener) return;
    const listener = pgListen({
      url: this.deps.databaseUrl,
      channel: CHANNEL,
      onNotification: (payload) => this.dispatch(payload),
      // Notifications sent while disconnected are lost: every stream reads again.
      onConnected: (reconnected) => reconnected && this.wakeAll(),
      onDisconnected: (err) => this.deps.log.warn({ err }, 'Conversation stream listener lost; streams read again when it is back'),
    });
    this.listener = listener;
    if (!(await listener.readyWithin(5000))) this.deps.log.warn('Conversation stream listener not ready after 5 s');
  }

  /** Stops listening and ends every open stream of this process (clients resume with Last-Event-ID). */
  async close(): Promise<void> {
    for (const set of this.subscribers.values()) for (const s of set) s.notify(undefined, true);
    await this.listener?.close();
    this.listener = undefined;
  }

  subscribe(conversationId: string): ConversationSubscription {
    const sub = new Subscription((s) => {
      const set = this.subscribers.get(conversationId);
      set?.delete(s);
      if (set?.size === 0) this.subscribers.delete(conversationId);
    });
    let set = this.subscribers.get(conversationId);
    if (!set) this.subscribers.set(conversationId, (set = new Set()));
    set.add(sub);
    return sub;
  }

  /** Listens to every conversation's stored changes in this process (the inbox); the answer stops listening. */
  onAnyConversation(listener: (conversationId: string) => void): () => void {
    this.anyConversation.add(listener);
    return () => this.anyConversation.delete(listener);
  }

  /**
   * Something the conversation's events do not carry changed (its assignee): every process's inbox streams
   * and conversation streams read it again (a conversation stream finds nothing new and waits on).
   */
  async publishChanged(conversationId: string): Promise<void> {
    const payload = `${conversationId}:changed`;
    if (!this.deps.databaseUrl) {
      this.dispatch(payload);
      return;
    }
    await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(this.deps.db);
  }

  /**
   * A reply.delta just committed by this process (its insert returned): this process's streams of the
   * conversation get it now, as its notification would bring it (which they then skip: same number).
   */
  publishStoredDelta(conversationId: string, delta: NotifiedDelta): void {
    const set = this.subscribers.get(conversationId);
    if (set) for (const s of set) s.notify(undefined, false, delta);
  }

  /** Open streams in this process (metrics, tests). */
  get openStreams(): number {
    let n = 0;
    for (const set of this.subscribers.values()) n += set.size;
    return n;
  }

  /** A person is typing in the conversation: every process's streams of it carry `typing` (not stored). */
  async publishTyping(conversationId: string, signal: TypingSignal): Promise<void> {
    const payload = `${conversationId}:typing:${JSON.stringify(signal)}`;
    if (!this.deps.databaseUrl) {
      this.dispatch(payload);
      return;
    }
    await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(this.deps.db);
  }

  private dispatch(payload: string) {
    const colon = payload.indexOf(':');
    if (colon <= 0) return;
    const conversationId = payload.slice(0, colon);
    const rest = payload.slice(colon + 1);
    const isTyping = rest.startsWith('typing:');
    // The inbox hears of stored changes (a message, a status, an assignee), not of typing or reply deltas.
    if (!isTyping && rest.indexOf(':') < 0) for (const listener of this.anyConversation) listener(conversationId);
    const set = this.subscribers.get(conversationId);
    if (!set) return;
    let typing: TypingSignal | undefined;
    let delta: NotifiedDelta | undefined;
    const second = rest.indexOf(':');
    try {
      if (rest.startsWith('typing:')) typing = JSON.parse(rest.slice('typing:'.length)) as TypingSignal;
      else if (second > 0) delta = { seq: Number(rest.slice(0, second)), data: JSON.parse(rest.slice(second + 1)) as Record<string, unknown> };
    } catch {
      if (rest.startsWith('typing:')) return;
      delta = undefined;
    }
    for (const s of set) s.notify(typing, false, delta);
  }

  private wakeAll() {
    for (const set of this.subscribers.values()) for (const s of set) s.notify();
    // Notifications may have been lost: inbox streams read what changed since.
    for (const listener of this.anyConversation) listener('');
  }
}
