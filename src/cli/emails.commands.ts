import type { CliArgs } from './cli-args';
import type { CliServices } from './cli-services';

/** `emails add|attach-agent|list`: what to print (JSON), or null when the arguments make no command. */
export async function runEmailsCommand(services: Pick<CliServices, 'accounts' | 'emailAddresses'>, args: CliArgs): Promise<string | null> {
  const { action, values, livemode } = args;
  const { accounts, emailAddresses } = services;
  if (action === 'add' && values.account && values.address) {
    await accounts.getAccount({ accountId: values.account });
    const address = await emailAddresses.addAddress({ accountId: values.account, livemode, address: values.address, displayName: values.name, agentId: values.agent });
    return JSON.stringify(address, null, 2);
  }
  if (action === 'attach-agent' && values.account && values.email && values.agent) {
    const address = await emailAddresses.attachAgent({ accountId: values.account, livemode, emailAddressId: values.email, agentId: values.agent === 'none' ? null : values.agent });
    return JSON.stringify(address, null, 2);
  }
  if (action === 'list' && values.account) {
    return JSON.stringify(await emailAddresses.listAddresses({ accountId: values.account, livemode }), null, 2);
  }
  return null;
}
