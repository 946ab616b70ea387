import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { AccountsService } from '../../src/accounts/accounts.service';
import { TEST_DATABASE_URL } from '../support/config';
import { signInToConsole } from '../support/console';
import { StatementCounter } from '../support/db';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';

/**
 * An API key's `last_used_at` (the console's "Last used"): written when a request uses the key, at most
 * once a minute per key, never on the request's path (the update is not awaited).
 */
const ctx = useTestStack({ label: __filename, worker: false });

const lastUsedOf = async (keyId: string) =>
  (await ctx.stack.database.db.selectFrom('api_keys').select('last_used_at').where('id', '=', keyId).executeTakeFirstOrThrow()).last_used_at;

describe('API keys: last used', () => {
  it('a request with a key sets last_used_at, and the console shows it', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Last used');
    const [key] = await ctx.stack.services.accounts.listApiKeys({ accountId });
    assert.equal(key!.last_used_at, null);
    const before = Date.now();
    assert.equal((await apiClient(ctx.stack.baseUrl, apiKey)('GET', '/v1/account')).status, 200);
    const used = await pollUntil('last_used_at to be written', async () => (await lastUsedOf(key!.id)) ?? undefined, { timeoutMs: 5000, intervalMs: 20 });
    assert.ok(used!.getTime() >= before - 1000 && used!.getTime() <= Date.now(), used!.toISOString());

    const consoleSession = await signInToConsole(ctx.stack.baseUrl, apiKey);
    const page = await consoleSession.get('/console/keys');
    const row = page.text.split('<tr').find((r) => r.includes(`…${apiKey.slice(-4)}<`));
    assert.ok(row, page.text);
    // Created and Last used are both times ("—" stood for a key never used).
    assert.equal(row.match(/<time datetime="[^"]+"[^>]*>\d+s ago<\/time>/g)?.length, 2, `"Last used" shows the request: ${row}`);
  });

  it('a second use within the minute writes nothing, and the write never holds up the request', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Throttled');
    const [key] = await ctx.stack.services.accounts.listApiKeys({ accountId });
    const counter = new StatementCounter();
    // No authentication cache (every authenticate reads the key), so the counts show the writes alone.
    const accounts = new AccountsService({ db: ctx.stack.database.db.withPlugin(counter), cacheTtlMs: 0 });
    const use = async () => accounts.recordKeyUse((await accounts.authenticate(apiKey)).keyId);

    await use();
    await pollUntil('the first use to be written', async () => (await lastUsedOf(key!.id)) ?? undefined, { timeoutMs: 5000, intervalMs: 20 });
    assert.deepEqual(counter.kinds, ['select', 'update']);
    counter.reset();
    await use();
    await use();
    assert.deepEqual(counter.kinds, ['select', 'select'], 'uses within the minute write nothing');

    // Off the request's path: with the key's row locked by another transaction, the update waits and the
    // request does not (authenticate reads the row without locking it).
    const { apiKey: lockedKey, accountId: lockedAccount } = await ctx.stack.newAccount('Locked row');
    const [locked] = await ctx.stack.services.accounts.listApiKeys({ accountId: lockedAccount });
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${ctx.stack.database.schema}` });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from api_keys where id = $1 for update', [locked!.id]);
      const fresh = new AccountsService({ db: ctx.stack.database.db, cacheTtlMs: 0 });
      const principal = await fresh.authenticate(lockedKey);
      fresh.recordKeyUse(principal.keyId);
      assert.equal((await fresh.authenticate(lockedKey)).keyId, locked!.id, 'the next request is answered meanwhile');
      assert.equal(await lastUsedOf(locked!.id), null, 'the write is still waiting for the lock');
      await holder.query('commit');
      await pollUntil('the waiting write to land', async () => (await lastUsedOf(locked!.id)) ?? undefined, { timeoutMs: 5000, intervalMs: 20 });
    } finally {
      await holder.end();
    }
  });
});
