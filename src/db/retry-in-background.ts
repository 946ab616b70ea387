/**
 * Tries `fn` again in the background (200 ms doubling to 2 s) until it succeeds or `forMs` has passed
 * since the call; for clean-ups a request could not finish because the database was away (the very
 * reason it failed), so they happen once the database is back rather than never. Resolves nothing: the
 * caller has answered already. `onGiveUp` runs when the time is up.
 */
export function retryInBackground(fn: () => Promise<unknown>, opts: { forMs: number; onGiveUp?: () => void }): void {
  const deadline = Date.now() + opts.forMs;
  let delay = 200;
  const next = () => {
    if (Date.now() + delay > deadline) {
      opts.onGiveUp?.();
      return;
    }
    setTimeout(() => {
      fn().catch(() => {
        delay = Math.min(2 * delay, 2000);
        next();
      });
    }, delay).unref();
  };
  next();
}
