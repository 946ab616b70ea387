import { parentPort } from 'node:worker_threads';
import { AppError } from '../../domain/errors';
import { parseDocumentInThisThread } from './document-parsers';
import type { ParseJob, ParseReply } from './document-parse';

/** Body of a parse worker thread: documents in, their blocks (or the refusal) out, one at a time. */
async function run(job: ParseJob): Promise<ParseReply> {
  try {
    const doc = await parseDocumentInThisThread({ ...job.request, data: Buffer.from(job.request.data) });
    return { id: job.id, ok: true, doc };
  } catch (err) {
    if (err instanceof AppError) return { id: job.id, ok: false, code: err.code, message: err.message };
    return { id: job.id, ok: false, code: 'unsupported_file', message: `Unsupported file: the ${job.request.format} file could not be parsed` };
  }
}

parentPort!.on('message', (job: ParseJob) => {
  void run(job).then((reply) => parentPort!.postMessage(reply));
});
