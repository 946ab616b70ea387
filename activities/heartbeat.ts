import { Context } from '@temporalio/activity';

/** Heartbeats while `fn` runs, so a worker lost mid-call is noticed within the heartbeat timeout. */
export async function withHeartbeat<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
