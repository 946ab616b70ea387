import { readFile } from 'node:fs/promises';
import { AppError } from '../domain/errors';

/** Reads a file a command names (the agent YAML, a call flow): the CLI's own disk by default. */
export type ReadCliFile = (file: string) => Promise<string>;

/** The file's text, or a parameter_invalid error naming it. */
export async function readCommandFile(file: string, read: ReadCliFile = (f) => readFile(f, 'utf8')): Promise<string> {
  try {
    return await read(file);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('parameter_invalid', `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
