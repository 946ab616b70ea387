import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AccountsService } from './accounts.service';

/**
 * The development account and its test key, created on first start. Keys are stored hashed, so the
 * secret is kept in a 0600 file under the data folder to be printed on every start.
 */
export async function ensureDevAccount(accounts: AccountsService, dataDir: string): Promise<{ accountId: string; apiKey: string }> {
  const file = path.join(dataDir, 'dev-api-key');
  if (existsSync(file)) {
    const apiKey = readFileSync(file, 'utf8').trim();
    try {
      const principal = await accounts.authenticate(apiKey);
      return { accountId: principal.accountId, apiKey };
    } catch {
      // The database was replaced (another DATABASE_URL): make a new account and key below.
    }
  }
  const account = (await accounts.findAccountByName({ name: 'Development' })) ?? (await accounts.createAccount({ name: 'Development' }));
  const { secret } = await accounts.createApiKey({ accountId: account.id, mode: 'test', name: 'dev' });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { accountId: account.id, apiKey: secret };
}
