import type { CliArgs } from './cli-args';
import type { CliServices } from './cli-services';

/**
 * `accounts create`, `keys create|revoke`: what to print (JSON), or null when the arguments make no
 * command (the caller prints usage).
 */
export async function runAccountsCommand(services: Pick<CliServices, 'accounts'>, args: CliArgs): Promise<string | null> {
  const { accounts } = services;
  const { resource, action, values } = args;
  if (resource === 'accounts' && action === 'create' && values.name) {
    const a = await accounts.createAccount({ name: values.name });
    const { secret } = await accounts.createApiKey({ accountId: a.id, mode: 'test', name: 'default' });
    return JSON.stringify({ account: a.id, test_key: secret }, null, 2);
  }
  if (resource === 'keys' && action === 'create' && values.account) {
    const mode = values.mode === 'live' ? 'live' : 'test';
    const { key, secret } = await accounts.createApiKey({ accountId: values.account, mode, name: values.name });
    return JSON.stringify({ id: key.id, mode, secret }, null, 2);
  }
  if (resource === 'keys' && action === 'revoke' && values.account && values.key) {
    const key = await accounts.revokeApiKey({ accountId: values.account, keyId: values.key });
    return JSON.stringify({ id: key.id, revoked: true });
  }
  return null;
}
