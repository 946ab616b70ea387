import { z } from 'zod';

/** Per-account limits (422 account_limit_reached past them). */
export const limitsConfig = z
  .object({
    MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: z.coerce.number().int().positive().default(16),
    MAX_API_SOURCES_PER_ACCOUNT: z.coerce.number().int().positive().default(20),
  })
  .transform((e) => ({
    limits: { webhookEndpointsPerAccount: e.MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT, apiSourcesPerAccount: e.MAX_API_SOURCES_PER_ACCOUNT },
  }));
