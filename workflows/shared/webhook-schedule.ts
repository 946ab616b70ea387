/**
 * Delays between webhook delivery attempts: exponential backoff over about 3 days (71.6 h between the
 * first and the tenth, last attempt), in the manner of Stripe's schedule.
 */
export const WEBHOOK_RETRY_DELAYS = ['1m', '5m', '30m', '2h', '5h', '10h', '14h', '20h', '20h'] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS.length + 1;
