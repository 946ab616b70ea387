import { Readable } from 'node:stream';
import type { Request } from 'express';
import { AppError } from '../../domain/errors';

/**
 * Reads a multipart body whole (at most `maxBytes`) so the idempotency middleware can hash its content,
 * then hands the same bytes to the route's multipart parser: `pipe` reads from a copy. The boundary is
 * replaced by a fixed token in the returned bytes, so the same form sent again under another boundary
 * hashes the same.
 */
export async function bufferMultipart(req: Request, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new AppError('parameter_invalid', 'The file is larger than the upload limit', { param: 'file' });
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const replay = Readable.from([body]);
  Object.assign(req, {
    pipe: replay.pipe.bind(replay),
    unpipe: replay.unpipe.bind(replay),
  });
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(req.headers['content-type'] ?? '');
  const token = boundary?.[1] ?? boundary?.[2];
  return token ? Buffer.from(body.toString('latin1').split(token).join('BOUNDARY'), 'latin1') : body;
}
