/**
 * Bench-only counter of Postgres round trips (pg.Client#query calls) for `npm run bench:sms`, installed in
 * both processes (API + load generator, and the worker) from outside the services. The bench's own
 * progress polls run inside `uncounted()` so they do not inflate the figure.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

const bench = new AsyncLocalStorage<true>();
let count = 0;
let installed = false;

export function countRoundTrips() {
  if (installed) return;
  installed = true;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (!bench.getStore()) count++;
    return query.apply(this, args);
  };
}

export function resetRoundTrips() {
  count = 0;
}

export function roundTrips() {
  return count;
}

/** Runs the bench's own queries without counting them. */
export function uncounted<T>(fn: () => Promise<T>): Promise<T> {
  return bench.run(true, fn);
}
