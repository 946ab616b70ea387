import { runAccountsCommand } from './accounts.commands';
import { runAgentsCommand, runAgentsTestCommand } from './agents.commands';
import { parseCliArgs } from './cli-args';
import type { ReadCliFile } from './cli-files';
import type { CliServices } from './cli-services';
import { runDemoCommand } from './demo.commands';
import { runEmailsCommand } from './emails.commands';
import { runNumbersCommand, runSendersCommand } from './numbers.commands';
import { runPublishableKeysCommand } from './publishable-keys.commands';
import { runTeammatesCommand } from './teammates.commands';

export const CLI_USAGE = `Usage:
  npm run cli -- accounts create --name <name>
  npm run cli -- keys create --account <acct_id> [--mode test|live] [--name <label>]
  npm run cli -- keys revoke --account <acct_id> --key <key_id>
  npm run cli -- numbers add --account <acct_id> --number <E.164> [--help-text <text>] [--mode test|live]
  npm run cli -- numbers attach-agent --account <acct_id> --number <pn_id> --agent <agt_id|none> [--mode test|live]
  npm run cli -- numbers set-call-flow --account <acct_id> --number <pn_id> <flow.json|'{json}'|none> [--mode test|live]
  npm run cli -- emails add --account <acct_id> --address <support@example.com> [--name <From display name>] [--agent <agt_id>] [--mode test|live]
  npm run cli -- emails attach-agent --account <acct_id> --email <ea_id> --agent <agt_id|none> [--mode test|live]
  npm run cli -- emails list --account <acct_id> [--mode test|live]
  npm run cli -- agents apply --account <acct_id> <agent.yaml> [--mode test|live]   (create or update by name; publishes unless publish: false)
  npm run cli -- agents list --account <acct_id> [--mode test|live]
  npm run cli -- agents publish --account <acct_id> --agent <agt_id> [--mode test|live]   (a draft equal to the live version publishes nothing)
  npm run cli -- agents export --account <acct_id> --agent <agt_id> [--mode test|live]   (the agent's YAML, tests included, that agents apply takes back unchanged)
  npm run cli -- agents test --account <acct_id> <agent.yaml> [--mode test|live]   (applies as draft, runs its tests on the running service; exit 1 on a failure)
  npm run cli -- publishable-keys create --account <acct_id> --agent <agt_id> --origin <https://shop.example> [--origin …] [--name <label>] [--mode test|live]
  npm run cli -- publishable-keys list --account <acct_id> [--agent <agt_id>] [--mode test|live]
  npm run cli -- publishable-keys revoke --account <acct_id> --key <pkey_id> [--mode test|live]   (the running service refuses it at once)
  npm run cli -- teammates create-owner --account <acct_id> --email <owner@example.com>   (prints a one-time link: the owner sets a name and password)
  npm run cli -- teammates invite --account <acct_id> --email <sam@example.com> [--role owner|admin|agent|viewer]   (agent unless --role)
  npm run cli -- senders add --account <acct_id> --sender <sender ID or short code> [--mode test|live]
  npm run cli -- demo traffic [--days 14] [--account <acct_id>]   (conversations of the example agent over the last days, test mode; default: the development account)
  npm run cli -- demo traffic --remove [--account <acct_id>]   (deletes every demo conversation)

Objects belong to one mode (test unless --mode live) and are seen only with keys of that mode.`;

/** What a command printed and how it ended: 0 done, 1 failed (an error or a failing evaluation), 2 usage. */
export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Runs one operator command (`argv` as after `npm run cli --`) on the given services and answers what to
 * print. Files a command names are read through `readFile` (the CLI's own disk by default).
 */
export async function runCliCommand(argv: string[], services: CliServices, opts: { readFile?: ReadCliFile } = {}): Promise<CliResult> {
  const print = (stdout: string, exitCode = 0): CliResult => ({ stdout: `${stdout}\n`, stderr: '', exitCode });
  const usage: CliResult = { stdout: '', stderr: `${CLI_USAGE}\n`, exitCode: 2 };
  try {
    const args = parseCliArgs(argv);
    const { resource, action, values, positionals, livemode } = args;
    let output: string | null = null;
    if (resource === 'accounts' || resource === 'keys') output = await runAccountsCommand(services, args);
    else if (resource === 'numbers') output = await runNumbersCommand(services, args, opts.readFile);
    else if (resource === 'senders') output = await runSendersCommand(services, args);
    else if (resource === 'emails') output = await runEmailsCommand(services, args);
    else if (resource === 'publishable-keys') output = await runPublishableKeysCommand(services, args);
    else if (resource === 'teammates') output = await runTeammatesCommand(services, args);
    else if (resource === 'demo') output = await runDemoCommand(services, args);
    else if (resource === 'agents' && action === 'test' && values.account && positionals[0]) {
      const { output: table, passed } = await runAgentsTestCommand(services, { account: values.account, livemode, file: positionals[0], readFile: opts.readFile });
      return print(table, passed ? 0 : 1);
    } else if (resource === 'agents') {
      output = await runAgentsCommand(services, { action, account: values.account, livemode, agent: values.agent, file: positionals[0], readFile: opts.readFile });
    }
    return output === null ? usage : print(output);
  } catch (err) {
    return { stdout: '', stderr: `${(err as Error).message ?? String(err)}\n`, exitCode: 1 };
  }
}
