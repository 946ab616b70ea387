import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The lock file's name inside the embedded database's folder. */
export const DATA_DIR_LOCK_FILE = 'converse.lock';

/**
 * Who holds the embedded database's folder: one process at a time opens PGlite there (two would each
 * write their own copy and lose the other's writes). The holder's record, in `<dir>/converse.lock`,
 * mode 0600: reading it is the operator's credential, as is access to the folder itself.
 */
export interface DataDirHolder {
  pid: number;
  /** What holds it: `npm start` (the service) or `npm run cli`. */
  holder: string;
  started_at: string;
  /** The service's operator endpoint (loopback), once it listens; null while starting, and for the CLI. */
  operator_url: string | null;
  /** The operator endpoint's bearer token (random per start). */
  token: string;
}

/** The folder is held by a live process: nothing may open PGlite there. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dir: string,
    readonly current: DataDirHolder,
  ) {
    super(`The embedded database in ${dir} is in use by process ${current.pid} (${current.holder})`);
  }
}

export interface DataDirLock {
  readonly dir: string;
  readonly token: string;
  /** Records the operator endpoint's URL (the CLI then sends its commands there). */
  publishOperatorUrl(url: string): void;
  /** Removes the lock file if it is still this holder's. */
  release(): void;
}

const lockPath = (dir: string) => path.join(dir, DATA_DIR_LOCK_FILE);

/** Whether a process with this id runs (EPERM: it runs under another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(file: string): DataDirHolder | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const r = JSON.parse(text) as DataDirHolder;
    return Number.isInteger(r.pid) && r.pid > 0 && typeof r.token === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The live holder of `dir`, if any. A lock whose process is gone (killed, crashed) is stale and reads as
 * no holder; so does a file that is not a lock record (the lock is only ever written whole, by rename or link).
 */
export function readDataDirHolder(dir: string): DataDirHolder | undefined {
  const record = readRecord(lockPath(dir));
  return record && processAlive(record.pid) ? record : undefined;
}

/** Writes `record` to a fresh file beside the lock (mode 0600) and answers its path. */
function writeTemp(dir: string, record: DataDirHolder): string {
  const temp = path.join(dir, `${DATA_DIR_LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return temp;
}

/**
 * Takes the lock of `dir` for this process, or throws DataDirInUseError naming the live holder. The lock
 * file appears whole (written aside, then hard-linked into place, which fails if a lock exists); a stale
 * lock (its process is gone) is taken over.
 */
export function acquireDataDirLock(dir: string, input: { holder: string }): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const file = lockPath(dir);
  let record: DataDirHolder = {
    pid: process.pid,
    holder: input.holder,
    started_at: new Date().toISOString(),
    operator_url: null,
    token: randomBytes(32).toString('base64url'),
  };
  const ours = () => readRecord(file)?.token === record.token;
  for (let attempt = 0; ; attempt++) {
    const temp = writeTemp(dir, record);
    try {
      linkSync(temp, file);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
      const current = readRecord(file);
      if (current && processAlive(current.pid)) throw new DataDirInUseError(dir, current);
      // Stale: remove it unless another process took it over meanwhile, then try again.
      const again = readRecord(file);
      if (again?.token === current?.token) {
        try {
          unlinkSync(file);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
    } finally {
      unlinkSync(temp);
    }
  }
  return {
    dir,
    token: record.token,
    publishOperatorUrl(url: string) {
      if (!ours()) return;
      record = { ...record, operator_url: url };
      renameSync(writeTemp(dir, record), file);
    },
    release() {
      if (ours()) unlinkSync(file);
    },
  };
}
