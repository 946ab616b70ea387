import { z } from 'zod';

/**
 * What `npm run cli` sends to the service that holds the embedded database (src/cli/operator.routes.ts),
 * and what it gets back.
 */

/** Where a CLI sends its command while the service holds the embedded database. */
export const OPERATOR_CLI_PATH = '/operator/cli';

/** A file a forwarded command names travels with it, read on the operator's side: at most this big. */
export const MAX_FORWARDED_FILE_BYTES = 1_000_000;
export const MAX_FORWARDED_FILES = 4;

/** `npm run cli -- <argv…>` as the CLI forwards it, with the contents of the files its arguments name. */
export const OperatorCommandSchema = z.strictObject({
  argv: z.array(z.string().max(10_000)).max(64),
  files: z.record(z.string().max(4096), z.string().max(MAX_FORWARDED_FILE_BYTES)).default({}),
});
export type OperatorCommand = z.input<typeof OperatorCommandSchema>;

/** The answer: what the command printed and its exit code. */
export interface OperatorCommandResult {
  stdout: string;
  stderr: string;
  exit_code: number;
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
