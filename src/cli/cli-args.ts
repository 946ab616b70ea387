import { parseArgs } from 'node:util';

/** `npm run cli -- <resource> <action> [--option value…] [positional…]` as the commands read it. */
export interface CliArgs {
  resource: string | undefined;
  action: string | undefined;
  values: {
    name?: string;
    account?: string;
    mode?: string;
    key?: string;
    number?: string;
    'help-text'?: string;
    agent?: string;
    sender?: string;
    address?: string;
    email?: string;
    role?: string;
    origin?: string[];
    /** `demo traffic`: days of traffic. */
    days?: string;
    /** `demo traffic --remove`. */
    remove?: boolean;
  };
  positionals: string[];
  /** Objects of live mode (`--mode live`), else test mode. */
  livemode: boolean;
}

/** Parses the CLI's arguments (an unknown option throws, naming it). */
export function parseCliArgs(argv: string[]): CliArgs {
  const [resource, action, ...rest] = argv;
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
      role: { type: 'string' },
      origin: { type: 'string', multiple: true },
      days: { type: 'string' },
      remove: { type: 'boolean' },
    },
  });
  return { resource, action, values, positionals, livemode: values.mode === 'live' };
}
