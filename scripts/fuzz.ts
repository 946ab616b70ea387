/**
 * `npm run fuzz`: Schemathesis (from PyPI, in .tools/venv) against /v1/openapi.json with a test key, every
 * check on. Targets FUZZ_BASE_URL with FUZZ_API_KEY when both are set (a stack you started, e.g. with
 * `npm start`); otherwise starts one here (the real app on a loopback port, Postgres at DATABASE_URL in a
 * fresh schema, a Temporal dev server) and a fresh account with a test key. Arguments after `--` go to
 * `st run` (for example `-- --max-examples 20 --phases examples,coverage`). Exits with Schemathesis's code.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(__dirname, '..');
const st = path.join(repo, '.tools/venv/bin/st');

export interface FuzzTarget {
  baseUrl: string;
  apiKey: string;
  close(): Promise<void>;
}

/** A stack of our own for the run: the test harness wiring (no worker: workflows are started, not run). */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
  const { createDevServerEnv } = await import('../test/support/temporal');
  const { startTestStack } = await import('../test/support/stack');
  const env = await createDevServerEnv();
  const stack = await startTestStack({ label: 'fuzz', env, worker: false });
  const { apiKey, accountId } = await stack.newAccount('Fuzz');
  // Something for the generated requests to find: a sender, a number and a knowledge base of its own.
  await stack.services.senders.registerSender({ accountId, livemode: false, sender: 'Fuzz' });
  await stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: '+14155550111' });
  return {
    baseUrl: stack.baseUrl,
    apiKey,
    async close() {
      await stack.close();
      await env.teardown();
    },
  };
}

/** Runs `st run` against the target; resolves with its exit code. */
export function runSchemathesis(target: { baseUrl: string; apiKey: string }, extra: string[] = []): Promise<number> {
  const args = [
    '--config-file', path.join(repo, 'schemathesis.toml'),
    'run',
    `${target.baseUrl}/v1/openapi.json`,
    '--url', target.baseUrl,
    '--header', `Authorization: Bearer ${target.apiKey}`,
    '--checks', 'all',
    ...extra,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(st, args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function main() {
  const extra = process.argv.slice(2);
  const external = process.env.FUZZ_BASE_URL && process.env.FUZZ_API_KEY;
  const target: FuzzTarget = external
    ? { baseUrl: process.env.FUZZ_BASE_URL!.replace(/\/$/, ''), apiKey: process.env.FUZZ_API_KEY!, close: async () => undefined }
    : await startFuzzTarget();
  let code = 1;
  try {
    code = await runSchemathesis(target, extra);
  } finally {
    await target.close();
  }
  process.exit(code);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
