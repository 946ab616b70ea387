export interface PollOptions {
  /** Give up after this long (wall clock); 30 s unless given. */
  timeoutMs?: number;
  /** Pause between two tries; 50 ms unless given. */
  intervalMs?: number;
  /** The state last seen, appended to the timeout error (a status, a process's output). */
  detail?: () => string;
}

/**
 * Calls `fn` until it returns something other than `undefined` or `false`, and resolves with that. Fails
 * after `timeoutMs` with an error naming `what`. An error thrown by `fn` fails the poll at once.
 *
 *   const m = await pollUntil('the message to be delivered', async () => {
 *     const res = await call('GET', `/v1/messages/${id}`);
 *     return res.body.status === 'delivered' && res.body;
 *   });
 */
export async function pollUntil<T>(
  what: string,
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  options: PollOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50, detail } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) {
      const seen = detail?.();
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${seen ? `: ${seen}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
