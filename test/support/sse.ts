/** One server-sent event as a client parses it. */
export interface ReceivedEvent {
  id?: string;
  event: string;
  data: any;
}

/**
 * A server-sent events client for tests and benchmarks: opens `url` with fetch and parses events as the
 * bytes arrive (comment lines skipped). `next()` waits for the next event (rejects after `timeoutMs`);
 * `ended` resolves when the server closes the stream.
 */
export async function openEventStream(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const queue: ReceivedEvent[] = [];
  const waiters: Array<(e: ReceivedEvent | undefined) => void> = [];
  let done = false;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((r) => (resolveEnded = r));
  /** When each event's first byte arrived (performance.now()), for benchmarks. */
  const arrivals: number[] = [];
  const push = (e: ReceivedEvent | undefined) => {
    const w = waiters.shift();
    if (w) w(e);
    else if (e) queue.push(e);
  };
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          const at = performance.now();
          buffer += decoder.decode(chunk, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const e: ReceivedEvent = { event: 'message', data: undefined };
            let data = '';
            let any = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id') e.id = value;
              else if (field === 'event') e.event = value;
              else if (field === 'data') data += value;
              any = true;
            }
            if (!any) continue;
            e.data = data ? JSON.parse(data) : undefined;
            arrivals.push(at);
            push(e);
          }
        }
      } catch {
        /* aborted */
      }
      done = true;
      resolveEnded();
      while (waiters.length) waiters.shift()!(undefined);
    })();
  } else {
    done = true;
    resolveEnded();
  }
  return {
    status: res.status,
    headers: res.headers,
    body: (res.ok ? undefined : await res.json().catch(() => undefined)) as any,
    ended,
    arrivals,
    /** The next event, or undefined once the stream has ended. */
    async next(timeoutMs = 20_000): Promise<ReceivedEvent | undefined> {
      if (queue.length) return queue.shift();
      if (done) return undefined;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`No event within ${timeoutMs} ms`));
        }, timeoutMs);
        const w = (e: ReceivedEvent | undefined) => {
          clearTimeout(timer);
          resolve(e);
        };
        waiters.push(w);
      });
    },
    /** Events until one of type `type` (included). */
    async until(type: string, timeoutMs = 20_000): Promise<ReceivedEvent[]> {
      const out: ReceivedEvent[] = [];
      for (;;) {
        const e = await this.next(timeoutMs);
        if (!e) throw new Error(`The stream ended before ${type}: ${JSON.stringify(out.map((x) => x.event))}`);
        out.push(e);
        if (e.event === type) return out;
      }
    },
    close() {
      abort.abort();
    },
  };
}
