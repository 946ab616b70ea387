import type { CliArgs } from './cli-args';
import type { CliServices } from './cli-services';

/** `publishable-keys create|list|revoke`: what to print (JSON), or null when the arguments make no command. */
export async function runPublishableKeysCommand(services: Pick<CliServices, 'publishableKeys'>, args: CliArgs): Promise<string | null> {
  const { action, values, livemode } = args;
  const { publishableKeys } = services;
  if (action === 'create' && values.account && values.agent) {
    const key = await publishableKeys.createKey({ accountId: values.account, livemode, agentId: values.agent, allowedOrigins: values.origin ?? [], name: values.name });
    return JSON.stringify(key, null, 2);
  }
  if (action === 'list' && values.account) {
    return JSON.stringify(await publishableKeys.listKeys({ accountId: values.account, livemode, agentId: values.agent }), null, 2);
  }
  if (action === 'revoke' && values.account && values.key) {
    return JSON.stringify(await publishableKeys.revokeKey({ accountId: values.account, livemode, keyId: values.key }), null, 2);
  }
  return null;
}
