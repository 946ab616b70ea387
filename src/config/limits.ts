import { z } from 'zod';

/** Test-mode volumes may be left out (no cap), as a test configuration does. */
interface AccountLimits {
  webhookEndpointsPerAccount: number;
  apiSourcesPerAccount: number;
  testBatchMessagesPerDay?: number;
  testBatchCallbackMessagesPerDay?: number;
}

/**
 * Per-account limits (422 account_limit_reached past them), and test-mode volumes per rolling 24 hours
 * (429 rate_limited past them): batch messages, and batch messages with a status_callback.
 */
export const limitsConfig = z
  .object({
    MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: z.coerce.number().int().positive().default(16),
    MAX_API_SOURCES_PER_ACCOUNT: z.coerce.number().int().positive().default(20),
    TEST_BATCH_MESSAGES_PER_DAY: z.coerce.number().int().positive().default(1000),
    TEST_BATCH_CALLBACK_MESSAGES_PER_DAY: z.coerce.number().int().positive().default(100),
  })
  .transform((e) => ({
    limits: {
      webhookEndpointsPerAccount: e.MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT,
      apiSourcesPerAccount: e.MAX_API_SOURCES_PER_ACCOUNT,
      testBatchMessagesPerDay: e.TEST_BATCH_MESSAGES_PER_DAY,
      testBatchCallbackMessagesPerDay: e.TEST_BATCH_CALLBACK_MESSAGES_PER_DAY,
    } as AccountLimits,
  }));
