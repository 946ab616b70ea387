import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { loadConfig } from './config/env';
import { openDatabase } from './db/open';
import { createLogger } from './observability/logger';
import { AccountsService } from './accounts/accounts.service';
import { PhoneNumbersService } from './numbers/phone-numbers.service';
import { buildAgentsCommandServices, runAgentsCommand, runAgentsTestCommand } from './agents/agents.commands';
import { SendersService } from './numbers/senders.service';
import type { VoiceCallFlowInput } from './numbers/call-flow.schemas';
import { EmailAddressesService } from './channels/email/email-addresses.service';
import { PublishableKeysService } from './widget/publishable-keys.service';
import { VisitorIdentityService } from './widget/visitor-identity.service';

const usage = `Usage:
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
  npm run cli -- senders add --account <acct_id> --sender <sender ID or short code> [--mode test|live]

Objects belong to one mode (test unless --mode live) and are seen only with keys of that mode.`;

/** Operator commands against the configured database (stop \`npm start\` first when it uses embedded PGlite). */
async function main() {
  const [resource, action, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      account: { type: 'string' },
      mode: { type: 'string' },
      key: { type: 'string' },
      number: { type: 'string' },
      'help-text': { type: 'string' },
      agent: { type: 'string' },
      sender: { type: 'string' },
      address: { type: 'string' },
      email: { type: 'string' },
      origin: { type: 'string', multiple: true },
    },
  });
  const config = loadConfig();
  const database = await openDatabase(config, createLogger('warn'));
  const accounts = new AccountsService({ db: database.db });
  const phoneNumbers = () => new PhoneNumbersService({ db: database.db, agents: buildAgentsCommandServices({ config, db: database.db }).agents });
  const emailAddresses = () => new EmailAddressesService({ db: database.db, agents: buildAgentsCommandServices({ config, db: database.db }).agents });
  const livemode = values.mode === 'live';
  const publishableKeys = () => {
    const { agents } = buildAgentsCommandServices({ config, db: database.db });
    const identity = new VisitorIdentityService({ db: database.db, agents, serverSecret: config.secrets.server });
    return new PublishableKeysService({ db: database.db, accounts, agents, identity, serverSecret: config.secrets.server });
  };
  try {
    if (resource === 'accounts' && action === 'create' && values.name) {
      const a = await accounts.createAccount({ name: values.name });
      const { secret } = await accounts.createApiKey({ accountId: a.id, mode: 'test', name: 'default' });
      console.log(JSON.stringify({ account: a.id, test_key: secret }, null, 2));
    } else if (resource === 'keys' && action === 'create' && values.account) {
      const mode = values.mode === 'live' ? 'live' : 'test';
      const { key, secret } = await accounts.createApiKey({ accountId: values.account, mode, name: values.name });
      console.log(JSON.stringify({ id: key.id, mode, secret }, null, 2));
    } else if (resource === 'keys' && action === 'revoke' && values.account && values.key) {
      const key = await accounts.revokeApiKey({ accountId: values.account, keyId: values.key });
      console.log(JSON.stringify({ id: key.id, revoked: true }));
    } else if (resource === 'numbers' && action === 'add' && values.account && values.number) {
      await accounts.getAccount({ accountId: values.account });
      const number = await phoneNumbers().provisionPhoneNumber({
        accountId: values.account,
        livemode,
        number: values.number,
        helpText: values['help-text'],
      });
      console.log(JSON.stringify(number, null, 2));
    } else if (resource === 'numbers' && action === 'attach-agent' && values.account && values.number && values.agent) {
      const number = await phoneNumbers().attachAgent({
        accountId: values.account,
        livemode,
        phoneNumberId: values.number,
        agentId: values.agent === 'none' ? null : values.agent,
      });
      console.log(JSON.stringify(number, null, 2));
    } else if (resource === 'numbers' && action === 'set-call-flow' && values.account && values.number && positionals[0]) {
      const arg = positionals[0];
      const flow = arg === 'none' ? null : (JSON.parse(arg.trimStart().startsWith('{') ? arg : readFileSync(arg, 'utf8')) as VoiceCallFlowInput);
      const number = await phoneNumbers().setVoiceCallFlow({ accountId: values.account, livemode, phoneNumberId: values.number, flow });
      console.log(JSON.stringify(number, null, 2));
    } else if (resource === 'emails' && action === 'add' && values.account && values.address) {
      await accounts.getAccount({ accountId: values.account });
      const address = await emailAddresses().addAddress({ accountId: values.account, livemode, address: values.address, displayName: values.name, agentId: values.agent });
      console.log(JSON.stringify(address, null, 2));
    } else if (resource === 'emails' && action === 'attach-agent' && values.account && values.email && values.agent) {
      const address = await emailAddresses().attachAgent({ accountId: values.account, livemode, emailAddressId: values.email, agentId: values.agent === 'none' ? null : values.agent });
      console.log(JSON.stringify(address, null, 2));
    } else if (resource === 'emails' && action === 'list' && values.account) {
      console.log(JSON.stringify(await emailAddresses().listAddresses({ accountId: values.account, livemode }), null, 2));
    } else if (resource === 'agents' && action === 'test' && values.account && positionals[0]) {
      const services = buildAgentsCommandServices({ config, db: database.db });
      try {
        const { output, passed } = await runAgentsTestCommand(services, { account: values.account, livemode, file: positionals[0] });
        console.log(output);
        if (!passed) process.exitCode = 1;
      } finally {
        await services.close();
      }
    } else if (resource === 'agents') {
      const output = await runAgentsCommand(buildAgentsCommandServices({ config, db: database.db }), {
        action,
        account: values.account,
        livemode,
        agent: values.agent,
        file: positionals[0],
      });
      if (output === null) {
        console.error(usage);
        process.exitCode = 2;
      } else console.log(output);
    } else if (resource === 'publishable-keys' && action === 'create' && values.account && values.agent) {
      const key = await publishableKeys().createKey({ accountId: values.account, livemode, agentId: values.agent, allowedOrigins: values.origin ?? [], name: values.name });
      console.log(JSON.stringify(key, null, 2));
    } else if (resource === 'publishable-keys' && action === 'list' && values.account) {
      console.log(JSON.stringify(await publishableKeys().listKeys({ accountId: values.account, livemode, agentId: values.agent }), null, 2));
    } else if (resource === 'publishable-keys' && action === 'revoke' && values.account && values.key) {
      console.log(JSON.stringify(await publishableKeys().revokeKey({ accountId: values.account, livemode, keyId: values.key }), null, 2));
    } else if (resource === 'senders' && action === 'add' && values.account && values.sender) {
      await accounts.getAccount({ accountId: values.account });
      const sender = await new SendersService({ db: database.db, reserved: [config.verify.from] }).registerSender({ accountId: values.account, livemode, sender: values.sender });
      console.log(JSON.stringify(sender, null, 2));
    } else {
      console.error(usage);
      process.exitCode = 2;
    }
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err.message ?? err);
  process.exit(1);
});
