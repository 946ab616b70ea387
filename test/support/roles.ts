import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach } from 'node:test';
import path from 'node:path';
import { TEST_DATABASE_URL } from './config';
import { pollUntil } from './poll';
import { freePort } from '../../src/platform/free-port';

const root = path.resolve(__dirname, '../..');

interface RoleProcess {
  role: 'api' | 'worker';
  child: ChildProcess;
  output: () => string;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
}

/**
 * One role of the scaled-out deployment (src/main.api.ts or src/main.worker.ts) as a real child process,
 * on the test's Postgres schema and Temporal server: for crash and restart tests.
 */
async function spawnRole(role: 'api' | 'worker', opts: { schema: string; temporalAddress: string; taskQueue: string; port?: number }): Promise<RoleProcess> {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${opts.schema}`);
  const child = spawn(process.execPath, ['--import', 'tsx', `src/main.${role}.ts`], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: url.toString(),
      TEMPORAL_ADDRESS: opts.temporalAddress,
      TEMPORAL_TASK_QUEUE: opts.taskQueue,
      ALLOW_PRIVATE_NETWORK: 'true',
      // Lexical retrieval, as the rest of the suite (test/support/config.ts).
      EMBEDDINGS: 'off',
      HOST: '127.0.0.1',
      PORT: String(opts.port ?? 0),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const ready = role === 'api' ? /API listening/ : /Worker polling/;
  await pollUntil(`the ${role} process to start`, async () => {
    if (child.exitCode !== null) throw new Error(`the ${role} process exited: ${out}`);
    return ready.test(out);
  }, { timeoutMs: 60_000, intervalMs: 100, detail: () => out.slice(-2000) });
  return {
    role,
    child,
    output: () => out,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Child API and worker processes of one test file, on the file's stack (`ctx` from useTestStack with
 * `worker: false`): `spawn` starts one; after each test every child is killed (a failed test prints the
 * tail of their output). Each test ends its children itself: the dev server's shutdown waits for their
 * pollers.
 */
export function useRoleProcesses(ctx: { env: { address: string }; stack: { database: { schema: string }; config: { temporal: { taskQueue: string } } } }) {
  const children: RoleProcess[] = [];
  afterEach(async (t) => {
    for (const c of children.splice(0)) {
      if ((t as unknown as { passed?: boolean }).passed === false) console.error(`--- ${c.role} output\n${c.output().slice(-4000)}`);
      await c.kill();
    }
  });
  return {
    async spawn(role: 'api' | 'worker', port?: number): Promise<RoleProcess> {
      const p = await spawnRole(role, { schema: ctx.stack.database.schema, temporalAddress: ctx.env.address, taskQueue: ctx.stack.config.temporal.taskQueue, port });
      children.push(p);
      return p;
    },
  };
}
