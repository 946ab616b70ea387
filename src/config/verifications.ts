import { z } from 'zod';

/** OTP verifications: code length, lifetime, wrong codes allowed, default sender. */
export const verificationsConfig = z
  .object({
    VERIFY_CODE_LENGTH: z.coerce.number().int().min(4).max(10).default(6),
    VERIFY_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(600),
    VERIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
    VERIFY_FROM: z.string().min(1).default('Verify'),
  })
  .transform((e) => ({
    verify: { codeLength: e.VERIFY_CODE_LENGTH, ttlSeconds: e.VERIFY_TTL_SECONDS, maxAttempts: e.VERIFY_MAX_ATTEMPTS, from: e.VERIFY_FROM },
  }));
