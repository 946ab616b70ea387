import { request } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import type { DataDirHolder } from '../db/data-dir-lock';
import { parseCliArgs } from './cli-args';
import type { CliResult } from './cli-commands';
import { isLoopbackAddress, MAX_FORWARDED_FILE_BYTES, OPERATOR_CLI_PATH, type OperatorCommand, type OperatorCommandResult } from './operator-command';

/** A command that was not run: why, and exit code 1. Nothing was opened, nothing written. */
export function refused(message: string): CliResult {
  return { stdout: '', stderr: `${message}\n`, exitCode: 1 };
}

/** Why the CLI cannot run while `holder` holds the embedded database and its operator endpoint is not there to take the command. */
export function heldMessage(dir: string, holder: DataDirHolder, why: string): string {
  return (
    `The embedded database in ${dir} is in use by process ${holder.pid} (${holder.holder}), ${why}. ` +
    'Nothing was done. Run the command again once `npm start` prints "Converse is running" (the CLI then goes through it), ' +
    'or after that process has ended.'
  );
}

/** The files the command's positional arguments name (an agent YAML, a call flow), read here: the service never reads the operator's disk. */
function filesNamedBy(argv: string[]): Record<string, string> {
  let positionals: string[];
  try {
    positionals = parseCliArgs(argv).positionals;
  } catch {
    return {}; // the service answers the parse error
  }
  const files: Record<string, string> = {};
  for (const p of positionals) {
    try {
      const stat = statSync(p);
      if (stat.isFile() && stat.size <= MAX_FORWARDED_FILE_BYTES) files[p] = readFileSync(p, 'utf8');
    } catch {
      // not a file: the argument is something else (inline JSON, `none`), or the command reports it missing
    }
  }
  return files;
}

/**
 * Sends `argv` to the service holding the embedded database (its operator endpoint, with the lock's
 * token), which runs the command on its own database; answers what it printed and its exit code. A
 * service that does not answer is a refusal: nothing was done.
 */
export async function forwardToService(dir: string, holder: DataDirHolder & { operator_url: string }, argv: string[]): Promise<CliResult> {
  // The token and the command go to this machine only, whatever the lock file says.
  let target: URL;
  try {
    target = new URL(OPERATOR_CLI_PATH, holder.operator_url);
  } catch {
    target = new URL('http://invalid.invalid');
  }
  if (target.protocol !== 'http:' || !isLoopbackAddress(target.hostname.replace(/^\[|\]$/g, ''))) {
    return refused(heldMessage(dir, holder, `but its lock names an operator endpoint that is not on this machine (${holder.operator_url})`));
  }
  const body = JSON.stringify({ argv, files: filesNamedBy(argv) } satisfies OperatorCommand);
  let response: { status: number; text: string };
  try {
    response = await new Promise((resolve, reject) => {
      const req = request(
        target,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${holder.token}` } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  } catch (err) {
    return refused(heldMessage(dir, holder, `but its operator endpoint ${holder.operator_url} did not answer (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`));
  }
  let parsed: Partial<OperatorCommandResult> & { error?: { message?: string } };
  try {
    parsed = JSON.parse(response.text);
  } catch {
    return refused(heldMessage(dir, holder, `but its operator endpoint answered HTTP ${response.status} without a result`));
  }
  if (response.status !== 200 || typeof parsed.exit_code !== 'number') {
    return refused(`The service holding ${dir} (process ${holder.pid}) refused the command: ${parsed.error?.message ?? `HTTP ${response.status}`}`);
  }
  return { stdout: parsed.stdout ?? '', stderr: parsed.stderr ?? '', exitCode: parsed.exit_code };
}
