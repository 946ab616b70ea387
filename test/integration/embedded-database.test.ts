import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { connectPglite } from '../../src/db/database';
import { migrateToLatestOrThrow } from '../../src/db/migrate';
import { AccountsService } from '../../src/accounts/accounts.service';

describe('embedded PostgreSQL (PGlite) for npm start without DATABASE_URL', () => {
  it('runs every migration and keeps data across restarts', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'converse-pglite-'));
    try {
      const first = await connectPglite(dir, { holder: 'test' });
      await migrateToLatestOrThrow(first.db);
      const accounts = new AccountsService({ db: first.db });
      const account = await accounts.createAccount({ name: 'Persisted' });
      const { secret } = await accounts.createApiKey({ accountId: account.id, mode: 'test' });
      await first.close();

      const second = await connectPglite(dir, { holder: 'test' });
      await migrateToLatestOrThrow(second.db);
      const principal = await new AccountsService({ db: second.db }).authenticate(secret);
      assert.equal(principal.accountId, account.id);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
