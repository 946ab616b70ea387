import type { VoiceCallFlowInput } from '../numbers/call-flow.schemas';
import { readCommandFile, type ReadCliFile } from './cli-files';
import type { CliArgs } from './cli-args';
import type { CliServices } from './cli-services';

/**
 * `numbers add|attach-agent|set-call-flow`: what to print (JSON), or null when the arguments make no
 * command (the caller prints usage).
 */
export async function runNumbersCommand(
  services: Pick<CliServices, 'accounts' | 'phoneNumbers'>,
  args: CliArgs,
  readFile?: ReadCliFile,
): Promise<string | null> {
  const { action, values, positionals, livemode } = args;
  const { accounts, phoneNumbers } = services;
  if (action === 'add' && values.account && values.number) {
    await accounts.getAccount({ accountId: values.account });
    const number = await phoneNumbers.provisionPhoneNumber({ accountId: values.account, livemode, number: values.number, helpText: values['help-text'] });
    return JSON.stringify(number, null, 2);
  }
  if (action === 'attach-agent' && values.account && values.number && values.agent) {
    const number = await phoneNumbers.attachAgent({
      accountId: values.account,
      livemode,
      phoneNumberId: values.number,
      agentId: values.agent === 'none' ? null : values.agent,
    });
    return JSON.stringify(number, null, 2);
  }
  if (action === 'set-call-flow' && values.account && values.number && positionals[0]) {
    const arg = positionals[0];
    const flow = arg === 'none' ? null : (JSON.parse(arg.trimStart().startsWith('{') ? arg : await readCommandFile(arg, readFile)) as VoiceCallFlowInput);
    const number = await phoneNumbers.setVoiceCallFlow({ accountId: values.account, livemode, phoneNumberId: values.number, flow });
    return JSON.stringify(number, null, 2);
  }
  return null;
}

/** `senders add`: what to print (JSON), or null when the arguments make no command. */
export async function runSendersCommand(services: Pick<CliServices, 'accounts' | 'senders'>, args: CliArgs): Promise<string | null> {
  const { action, values, livemode } = args;
  if (action === 'add' && values.account && values.sender) {
    await services.accounts.getAccount({ accountId: values.account });
    const sender = await services.senders.registerSender({ accountId: values.account, livemode, sender: values.sender });
    return JSON.stringify(sender, null, 2);
  }
  return null;
}
