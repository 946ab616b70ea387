import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccountsService } from '../../src/accounts/accounts.service';
import { startApiKeyRevocationFeed } from '../../src/accounts/api-key-revocation-feed';
import { TEST_DATABASE_URL } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase(__filename);
});
after(async () => {
  await database.destroy();
});

/** Milliseconds until `authenticate` on `api` starts refusing the key (fails the test past `limitMs`). */
async function msUntilRefused(api: AccountsService, secret: string, limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs + 1000) {
    try {
      await api.authenticate(secret);
    } catch {
      return Date.now() - started;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`the revoked key still worked after ${limitMs + 1000} ms`);
}

describe('API key revocation across processes', () => {
  it('reaches another process through LISTEN/NOTIFY at once, even with a long cache', async () => {
    const api = new AccountsService({ db: database.db, cacheTtlMs: 60_000 }); // an API process
    const cli = new AccountsService({ db: database.db }); // the CLI, another process
    let live!: () => void;
    const connected = new Promise<void>((r) => (live = r));
    const feed = startApiKeyRevocationFeed({ url: TEST_DATABASE_URL, accounts: api });
    const original = api.setRevocationFeed.bind(api);
    api.setRevocationFeed = (input) => {
      original(input);
      if (input.live) live();
    };
    try {
      await connected;
      const account = await cli.createAccount({ name: 'Revocation' });
      const { key, secret } = await cli.createApiKey({ accountId: account.id, mode: 'test' });
      await api.authenticate(secret); // cached for 60 s
      await cli.revokeApiKey({ accountId: account.id, keyId: key.id });
      const ms = await msUntilRefused(api, secret, 1000);
      assert.ok(ms < 1000, `took ${ms} ms`);
    } finally {
      await feed.close();
    }
  });

  it('takes effect within a second in a process with no feed (cache lifetime 1 s)', async () => {
    const api = new AccountsService({ db: database.db });
    const cli = new AccountsService({ db: database.db });
    const account = await cli.createAccount({ name: 'No feed' });
    const { key, secret } = await cli.createApiKey({ accountId: account.id, mode: 'test' });
    await api.authenticate(secret);
    await cli.revokeApiKey({ accountId: account.id, keyId: key.id });
    const ms = await msUntilRefused(api, secret, 1000);
    assert.ok(ms <= 1100, `took ${ms} ms`);
  });
});
