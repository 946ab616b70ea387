import type { Request, Response } from 'express';

export interface SseEvent {
  /** Absent on an event that is not stored (a resumed stream cannot replay it): the client's last id stays. */
  id?: number;
  event: string;
  data: Record<string, unknown>;
}

/**
 * Writes server-sent events from `events` until it ends or the client leaves; a comment line every 15 s
 * keeps proxies from closing an idle stream. `Last-Event-ID` resumption is the caller's (it picks where
 * `events` starts).
 */
export async function writeSse(req: Request, res: Response, events: (signal: AbortSignal) => AsyncIterable<SseEvent>): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  try {
    for await (const e of events(abort.signal)) {
      res.write(`${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    }
  } finally {
    clearInterval(keepAlive);
    res.end();
  }
  void req;
}

/** The event id to resume after: the Last-Event-ID header (or `last_event_id` query), else 0. */
export function lastEventId(req: Request): number {
  const raw = req.header('Last-Event-ID') ?? (typeof req.query.last_event_id === 'string' ? req.query.last_event_id : undefined);
  const n = raw === undefined ? 0 : Number.parseInt(raw, 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}
