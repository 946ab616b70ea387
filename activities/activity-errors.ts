import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../src/domain/errors';

/**
 * Runs a service call inside an activity: an AppError becomes an ApplicationFailure whose `type` is the
 * error code (non-retryable unless the code's policy says otherwise); anything else is left for Temporal
 * to retry.
 */
export async function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof AppError) {
      throw ApplicationFailure.create({ type: e.code, message: e.message, nonRetryable: !e.retryable, details: [e.param ?? null] });
    }
    throw e;
  }
}
