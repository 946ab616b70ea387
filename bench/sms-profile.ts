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
/** With BENCH_PROFILE_SQL=1: round trips per statement (its first words), to find the repeats. */
const detail = process.env.BENCH_PROFILE_SQL === '1';
const statements = new Map<string, number>();

export function countRoundTrips() {
  if (installed) return;
  installed = true;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (!bench.getStore()) {
      count++;
      if (detail) {
        const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text ?? '?');
        const key = text.replace(/\s+/g, ' ').slice(0, 90);
        statements.set(key, (statements.get(key) ?? 0) + 1);
      }
    }
    return query.apply(this, args);
  };
}

export function resetRoundTrips() {
  count = 0;
  statements.clear();
}

/** Round trips per statement (BENCH_PROFILE_SQL=1), most frequent first; empty otherwise. */
export function roundTripsByStatement(): Record<string, number> {
  return Object.fromEntries([...statements].sort((a, b) => b[1] - a[1]).slice(0, 25));
}

export function roundTrips() {
  return count;
}

/** Runs the bench's own queries without counting them. */
export function uncounted<T>(fn: () => Promise<T>): Promise<T> {
  return bench.run(true, fn);
}
