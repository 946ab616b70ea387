import { ActivityFailure, TimeoutFailure } from '@temporalio/workflow';

/**
 * The failure an activity call rejected with, unwrapped. A regular activity's failure arrives wrapped in
 * ActivityFailure; a local activity's arrives wrapped only when it timed out or was cancelled (the SDK
 * core wraps those), and as the activity's own ApplicationFailure otherwise (retries exhausted, or
 * non-retryable). Classify on what this returns, never on `instanceof ActivityFailure` alone.
 */
export function activityFailureCause(err: unknown): unknown {
  return err instanceof ActivityFailure ? err.cause : err;
}

/** The activity (local or not) ran out of time: its schedule-to-close (or start-to-close) timeout. */
export function isActivityTimeout(err: unknown): boolean {
  return activityFailureCause(err) instanceof TimeoutFailure;
}
