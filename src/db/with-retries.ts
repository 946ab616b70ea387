/**
 * Runs `fn` until it succeeds, at most `tries` times (at least once): the first retry `firstDelayMs` after the first
 * failure, each later one twice as long after the one before; the last failure is thrown. For idempotent
 * steps that fail while the database is busy or away for a moment and whose caller waits for the answer
 * (retryInBackground is for clean-ups nobody waits for).
 */
export async function withRetries<T>(fn: () => Promise<T>, opts: { tries: number; firstDelayMs: number }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= opts.tries) throw err;
      await new Promise((r) => setTimeout(r, opts.firstDelayMs * 2 ** (attempt - 1)));
    }
  }
}
