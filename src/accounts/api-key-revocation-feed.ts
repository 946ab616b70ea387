import { pgListen, type PgListener } from '../platform/pg-listen';
import type { Logger } from '../observability/logger';
import { API_KEY_REVOKED_CHANNEL } from './account.repo';
import type { AccountsService } from './accounts.service';

/**
 * Subscribes this process to revocations announced by any other (another API process, the CLI): each one
 * drops the key from the cache at once. While the subscription is down, keys are cached for a second.
 * Needs a Postgres server; with embedded PGlite there is one process and revocation clears it directly.
 */
export function startApiKeyRevocationFeed(input: { url: string; accounts: AccountsService; log?: Logger; retryMs?: number }): PgListener {
  return pgListen({
    url: input.url,
    channel: API_KEY_REVOKED_CHANNEL,
    // A fixed retry delay (1 s by default): keys are cached for a second only while the feed is down.
    retryMs: input.retryMs ?? 1000,
    maxRetryMs: input.retryMs ?? 1000,
    onNotification: (keyId) => input.accounts.forgetApiKey({ keyId }),
    onConnected: () => input.accounts.setRevocationFeed({ live: true }),
    onDisconnected: (err) => {
      input.accounts.setRevocationFeed({ live: false });
      input.log?.warn({ err }, 'API key revocation feed lost; reconnecting (keys cached for 1 s meanwhile)');
    },
  });
}
