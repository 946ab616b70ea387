import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_DATABASE_URL } from './config';

const REPO = path.resolve(__dirname, '../..');

/**
 * Runs `npm run cli -- <args>` as its own process (`node --import tsx src/cli.ts`) against a test file's
 * schema of the real Postgres; `env` adds variables (a Temporal address, a task queue). Answers the exit
 * code and the output, a failing command included.
 */
export async function runCliProcess(args: string[], opts: { schema: string; env?: Record<string, string>; timeoutMs?: number }) {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${opts.schema}`);
  const env = { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'silent', ...opts.env };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(REPO, 'src/cli.ts'), ...args], { cwd: REPO, env, timeout: opts.timeoutMs ?? 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
