import { z } from 'zod';
import { bool } from './env-values';

/** Stands in for SERVER_SECRET outside production; public, so it protects nothing. */
const DEVELOPMENT_SERVER_SECRET = 'converse-development-server-secret-not-for-production';

/** The process as a whole: mode, logging, data folder, the server secret, the console's dev sign-in. */
export const serviceConfig = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATA_DIR: z.string().default('data'),
    /**
     * Server secret keying what must not rest in clear: OTP code hashes and sealed message bodies. Required
     * in production; elsewhere a fixed development value stands in.
     */
    SERVER_SECRET: z.string().min(32).optional(),
    /**
     * `npm start` prints a one-time link signing a browser in to the development account's console (its
     * test key in DATA_DIR/dev-api-key); never in production, never with a live key. Nothing signs in by itself.
     */
    CONSOLE_DEV_SIGN_IN: bool.optional(),
  })
  .superRefine((e, ctx) => {
    if (e.NODE_ENV === 'production' && !e.SERVER_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['SERVER_SECRET'], message: 'required in production (at least 32 characters)' });
    }
  })
  .transform((e) => ({
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    dataDir: e.DATA_DIR,
    secrets: { server: e.SERVER_SECRET ?? DEVELOPMENT_SERVER_SECRET },
    console: { devSignIn: e.NODE_ENV !== 'production' && (e.CONSOLE_DEV_SIGN_IN ?? true) },
  }));
