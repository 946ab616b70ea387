import type { SchemaObject } from '@asteasolutions/zod-to-openapi/dist/types';
import type { Request, Response } from 'express';

export interface SseEvent {
  /** Absent on an event that is not stored (a resumed stream cannot replay it): the client's last id stays. */
  id?: number;
  event: string;
  data: Record<string, unknown>;
}

/**
 * One event of a `text/event-stream` response as the OpenAPI document states it: the per-event schema
 * (OpenAPI 3.2's `itemSchema`, which 3.1 tools such as Schemathesis read from `schema`): the fields of the
 * HTML standard's event parser, each a string, `data` one JSON object per event as `writeSse` writes it.
 */
export const SSE_EVENT_DOC_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'event', 'data'],
  properties: {
    id: { type: 'string', pattern: '^[0-9]+$', description: 'increasing per stream; send it back as Last-Event-ID to resume after it' },
    event: { type: 'string', description: 'run.started, tool.called, reply.delta, run.requires_action, run.completed, …' },
    data: { type: 'string', contentMediaType: 'application/json', description: 'a JSON object: the event\'s payload' },
    retry: { type: 'integer', minimum: 0 },
  },
};

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
