import pg from 'pg';

export interface NotificationListener {
  close(): Promise<void>;
}

/**
 * LISTENs on a Postgres channel over a dedicated connection (a pooled one would lose the subscription).
 * `onConnected` runs each time the subscription is (re)established, `onDisconnected` when it drops; the
 * connection is retried every `retryMs` until closed. Notifications sent while disconnected are lost:
 * callers treat `onConnected` as "anything may have happened meanwhile".
 */
export function listenForNotifications(opts: {
  url: string;
  channel: string;
  onNotification: (payload: string) => void;
  onConnected?: () => void;
  onDisconnected?: (err?: Error) => void;
  retryMs?: number;
}): NotificationListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: opts.url });
    client = c;
    let dropped = false;
    const drop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      void c.end().catch(() => undefined);
      if (closed) return;
      opts.onDisconnected?.(err);
      retry = setTimeout(() => void connect(), opts.retryMs ?? 1000);
      retry.unref();
    };
    c.on('error', drop);
    c.on('end', () => drop());
    c.on('notification', (n) => {
      if (n.channel === opts.channel) opts.onNotification(n.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(opts.channel)}`);
      if (!closed && !dropped) opts.onConnected?.();
    } catch (err) {
      drop(err as Error);
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
