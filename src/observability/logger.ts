import pino, { type Logger } from 'pino';

export type { Logger };

/** One pino logger for the process; secrets and message bodies never reach it above debug. */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'converse', ...base },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'secret', 'signing_secret', '*.secret', '*.signing_secret'],
      censor: '[redacted]',
    },
  });
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
