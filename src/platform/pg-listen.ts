import pg from 'pg';

export interface PgListener {
  /** Resolves once the first subscription is established (it keeps retrying until then, or until closed). */
  readonly ready: Promise<void>;
  /** Waits for `ready` at most `ms` (the caller goes on meanwhile, retries continue): true once subscribed. */
  readyWithin(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface PgListenOptions {
  url: string;
  channel: string;
  onNotification: (payload: string) => void;
  /**
   * Runs each time the subscription is established, `reconnected` false the first time. Notifications sent
   * while disconnected are lost: callers treat a reconnection as "anything may have happened meanwhile".
   */
  onConnected?: (reconnected: boolean) => void;
  /** The subscription dropped (or a connection attempt failed); it is tried again. */
  onDisconnected?: (err?: Error) => void;
  /** First retry delay, doubled per failed attempt up to `maxRetryMs` (defaults 250 ms and 10 s). */
  retryMs?: number;
  maxRetryMs?: number;
  connectTimeoutMs?: number;
}

/**
 * The one Postgres LISTEN of the service: a dedicated connection (a pooled one would lose the
 * subscription) LISTENing on one channel, reconnected with backoff whenever it drops, until closed.
 */
export function pgListen(opts: PgListenOptions): PgListener {
  const firstRetryMs = opts.retryMs ?? 250;
  const maxRetryMs = opts.maxRetryMs ?? 10_000;
  let client: pg.Client | undefined;
  let closed = false;
  let connectedOnce = false;
  let retryMs = firstRetryMs;
  let timer: NodeJS.Timeout | undefined;
  let resolveReady!: () => void;
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: opts.url, connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000 });
    client = c;
    let dropped = false;
    const drop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      void c.end().catch(() => undefined);
      if (closed) return;
      opts.onDisconnected?.(err);
      timer = setTimeout(() => void connect(), retryMs);
      timer.unref();
      retryMs = Math.min(retryMs * 2, maxRetryMs);
    };
    c.on('error', drop);
    c.on('end', () => drop());
    c.on('notification', (n) => {
      if (n.channel === opts.channel) opts.onNotification(n.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(opts.channel)}`);
    } catch (err) {
      drop(err as Error);
      return;
    }
    if (closed || dropped) return;
    retryMs = firstRetryMs;
    const reconnected = connectedOnce;
    connectedOnce = true;
    resolveReady();
    opts.onConnected?.(reconnected);
  };
  void connect();

  return {
    ready,
    async readyWithin(ms: number) {
      let timer: NodeJS.Timeout | undefined;
      const subscribed = await Promise.race([ready.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
      clearTimeout(timer);
      return subscribed && !closed;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      resolveReady();
      await client?.end().catch(() => undefined);
    },
  };
}
