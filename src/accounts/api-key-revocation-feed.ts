import { listenForNotifications, type NotificationListener } from '../db/notifications';
import type { Logger } from '../observability/logger';
import { API_KEY_REVOKED_CHANNEL } from './account.repo';
import type { AccountsService } from './accounts.service';

/**
 * Subscribes this process to revocations announced by any other (another API process, the CLI): each one
 * drops the key from the cache at once. While the subscription is down, keys are cached for a second.
 * Needs a Postgres server; with embedded PGlite there is one process and revocation clears it directly.
 */
export function startApiKeyRevocationFeed(input: { url: string; accounts: AccountsService; log?: Logger; retryMs?: number }): NotificationListener {
  return listenForNotifications({
    url: input.url,
    channel: API_KEY_REVOKED_CHANNEL,
    retryMs: input.retryMs,
    onNotification: (keyId) => input.accounts.forgetApiKey({ keyId }),
    onConnected: () => input.accounts.setRevocationFeed({ live: true }),
    onDisconnected: (err) => {
      input.accounts.setRevocationFeed({ live: false });
      input.log?.warn({ err }, 'API key revocation feed lost; reconnecting (keys cached for 1 s meanwhile)');
    },
  });
}
