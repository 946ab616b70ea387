import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../../domain/errors';
import type { KnowledgeFileFormat } from '../../db/tables/knowledge';
import type { ParsedDocument } from './document';
import { fileTooLarge, type ParseLimits } from './document-parsers';

/** Limits of one parse: the document's own (bytes, inflated size, pages) and the worker's (time, memory). */
export interface DocumentParseLimits extends ParseLimits {
  parseTimeoutMs: number;
  parseMemoryMb: number;
  /** Parse workers running at once in this process; more wait their turn. */
  parseConcurrency: number;
}

export interface ParseRequest {
  format: KnowledgeFileFormat;
  filename: string;
  data: Uint8Array;
  limits: ParseLimits;
}

export interface ParseJob {
  id: number;
  request: ParseRequest;
}

export type ParseReply = { id: number } & ({ ok: true; doc: ParsedDocument } | { ok: false; code: ErrorCode; message: string });

/** An idle worker is kept this long for the next document, then ended. */
const IDLE_MS = 30_000;

// Under tsx (development, tests) the worker's .ts entry needs the TypeScript hook loaded in that thread first.
const workerFile = path.join(__dirname, `document-parse.worker${path.extname(__filename)}`);
const bootstrap =
  path.extname(__filename) === '.ts'
    ? `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(workerFile)});`
    : `require(${JSON.stringify(workerFile)});`;

const cannotParse = (format: string, cause?: unknown) =>
  new AppError('unsupported_file', `Unsupported file: the ${format} file could not be parsed`, { param: 'file', cause });

interface PooledWorker {
  worker: Worker;
  memoryMb: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Parse workers, reused while they stay healthy: a worker that times out or runs out of memory is ended
 * and replaced by a fresh one on the next parse. Idle workers do not keep the process alive.
 */
class ParsePool {
  private readonly idle: PooledWorker[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private nextId = 1;

  async parse(request: ParseRequest, limits: DocumentParseLimits): Promise<ParsedDocument> {
    if (this.running >= Math.max(1, limits.parseConcurrency)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await this.runOn(this.take(limits.parseMemoryMb), request, limits);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private take(memoryMb: number): PooledWorker {
    let pooled: PooledWorker | undefined;
    while ((pooled = this.idle.pop())) {
      clearTimeout(pooled.idleTimer);
      if (pooled.memoryMb === memoryMb) return pooled;
      void pooled.worker.terminate();
    }
    const worker = new Worker(bootstrap, {
      eval: true,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume(); // parser warnings (pdf.js) are not ours to log
    worker.stderr.resume();
    const created: PooledWorker = { worker, memoryMb };
    worker.on('error', () => undefined); // a job's own listener reports it; an idle worker's death only leaves the pool
    worker.once('exit', () => {
      const i = this.idle.indexOf(created);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return created;
  }

  private release(pooled: PooledWorker) {
    pooled.worker.unref();
    pooled.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(pooled);
      if (i >= 0) this.idle.splice(i, 1);
      void pooled.worker.terminate();
    }, IDLE_MS);
    pooled.idleTimer.unref();
    this.idle.push(pooled);
  }

  private runOn(pooled: PooledWorker, request: ParseRequest, limits: DocumentParseLimits): Promise<ParsedDocument> {
    const { worker } = pooled;
    const id = this.nextId++;
    worker.ref();
    return new Promise<ParsedDocument>((resolve, reject) => {
      const done = (healthy: boolean, fn: () => void) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (healthy) this.release(pooled);
        else void worker.terminate();
        fn();
      };
      const onMessage = (reply: ParseReply) => {
        if (reply.id !== id) return;
        done(true, () => (reply.ok ? resolve(reply.doc) : reject(new AppError(reply.code, reply.message, { param: 'file' }))));
      };
      const onError = (err: Error & { code?: string }) =>
        done(false, () =>
          reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? fileTooLarge(`parsing it needs more than ${limits.parseMemoryMb} MB of memory`) : cannotParse(request.format, err)),
        );
      const onExit = () => done(false, () => reject(cannotParse(request.format)));
      const timer = setTimeout(
        () => done(false, () => reject(fileTooLarge(`it could not be parsed within ${limits.parseTimeoutMs / 1000} s`))),
        limits.parseTimeoutMs,
      );
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ id, request } satisfies ParseJob);
    });
  }
}

const pool = new ParsePool();

/**
 * Parses a document off the event loop: in a worker thread with a heap cap (`parseMemoryMb`) and a wall
 * clock (`parseTimeoutMs`), after checks on bytes, inflated size (DOCX) and pages inside the worker. At
 * most `parseConcurrency` parses run at once per process. Refusals are 422 `unsupported_file` /
 * `file_too_large`.
 */
export async function parseDocument(input: {
  format: KnowledgeFileFormat;
  filename: string;
  data: Buffer;
  limits: DocumentParseLimits;
}): Promise<ParsedDocument> {
  const { limits } = input;
  if (input.data.length > limits.maxFileBytes) throw fileTooLarge(`${input.data.length} bytes (at most ${limits.maxFileBytes})`);
  const request: ParseRequest = {
    format: input.format,
    filename: input.filename,
    data: new Uint8Array(input.data),
    limits: { maxFileBytes: limits.maxFileBytes, maxInflatedBytes: limits.maxInflatedBytes, maxPages: limits.maxPages },
  };
  return pool.parse(request, limits);
}
