import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccountsService } from '../../src/accounts/accounts.service';
import { startApiKeyRevocationFeed } from '../../src/accounts/api-key-revocation-feed';
import { buildCliServices } from '../../src/cli/cli-services';
import type { AgentsService } from '../../src/agents/agents.service';
import { PublishableKeysService } from '../../src/widget/publishable-keys.service';
import { VisitorIdentityService } from '../../src/widget/visitor-identity.service';
import { buildTestConfig, TEST_DATABASE_URL } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase(__filename);
});
after(async () => {
  await database.destroy();
});

/** One process's widget services (an API process, or the CLI). */
function widgetProcess(agents: AgentsService) {
  const accounts = new AccountsService({ db: database.db });
  const identity = new VisitorIdentityService({ db: database.db, agents, serverSecret: 'test-server-secret' });
  return { accounts, keys: new PublishableKeysService({ db: database.db, accounts, agents, identity, serverSecret: 'test-server-secret' }) };
}

describe('publishable key revocation across processes', () => {
  it("ends another process's open streams of the key through the API keys' revocation feed", async () => {
    const services = buildCliServices({ config: buildTestConfig(), db: database.db });
    const { agents } = services;
    const api = widgetProcess(agents);
    const cli = widgetProcess(agents);
    let live!: () => void;
    const connected = new Promise<void>((r) => (live = r));
    const original = api.accounts.setRevocationFeed.bind(api.accounts);
    api.accounts.setRevocationFeed = (input) => {
      original(input);
      if (input.live) live();
    };
    const feed = startApiKeyRevocationFeed({ url: TEST_DATABASE_URL, accounts: api.accounts });
    try {
      await connected;
      const account = await cli.accounts.createAccount({ name: 'Feed' });
      const agent = await agents.createAgent({ accountId: account.id, livemode: false, config: { name: 'Support', channels: ['chat'] } });
      const key = await cli.keys.createKey({ accountId: account.id, livemode: false, agentId: agent.id, allowedOrigins: ['https://shop.example'] });
      const grant = await api.keys.authenticateKey(key.key);
      const stream = api.keys.watchRevocation(grant.keyId);
      const unrelated = api.keys.watchRevocation('pkey_other');
      const ended = new Promise<number>((resolve) => stream.signal.addEventListener('abort', () => resolve(Date.now())));
      const started = Date.now();
      await cli.keys.revokeKey({ accountId: account.id, livemode: false, keyId: key.id });
      const at = await Promise.race([ended, new Promise<number>((r) => setTimeout(() => r(-1), 3000))]);
      assert.ok(at > 0, 'the stream in the other process was not ended');
      assert.ok(at - started < 1000, `took ${at - started} ms`);
      assert.equal(unrelated.signal.aborted, false);
      await assert.rejects(api.keys.authenticateKey(key.key), /Invalid publishable key/);
    } finally {
      await feed.close();
      await services.close();
    }
  });
});
