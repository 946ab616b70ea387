import { z } from '../domain/api-schema';
import multer from 'multer';
import type { Request, Response } from 'express';
import { AppError } from '../domain/errors';
import { defineRoute } from '../http/route';
import { IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import type { KnowledgeFilesService } from './knowledge-files.service';
import { FileSchema } from './file.schemas';
import { fileTooLarge } from './ingest/document-parsers';
import { scopeOf } from '../domain/principal';

const FileUploadSchema = z.strictObject({
  file: z.string().openapi({ format: 'binary' } as Record<string, unknown>).describe('the document: PDF, DOCX, HTML, Markdown or plain text'),
  purpose: z.string().max(100).optional().describe('free label, ignored'),
});

function receiveFile(upload: multer.Multer, maxBytes: number, req: Request, res: Response): Promise<Express.Multer.File> {
  return new Promise((resolve, reject) => {
    upload.single('file')(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return reject(fileTooLarge(`more than ${maxBytes} bytes`));
        return reject(new AppError('parameter_unknown', `Unexpected multipart field: ${err.field ?? err.code}`, { param: err.field ?? 'file' }));
      }
      // Anything else the multipart reader throws (no boundary, truncated body, bad part headers) is the body's fault.
      if (err) return reject(new AppError('parameter_invalid', `Malformed multipart/form-data body: ${(err as Error).message}`, { param: 'file' }));
      const fields = (req.body as Record<string, unknown> | undefined) ?? {};
      const extra = Object.keys(fields).find((k) => k !== 'purpose');
      if (extra) return reject(new AppError('parameter_unknown', `Received unknown parameter: ${extra}`, { param: extra }));
      if (fields.purpose !== undefined && typeof fields.purpose !== 'string') {
        return reject(new AppError('parameter_invalid', 'Invalid purpose: one text field', { param: 'purpose' }));
      }
      if (typeof fields.purpose === 'string' && fields.purpose.length > 100) {
        return reject(new AppError('parameter_invalid', 'Invalid purpose: at most 100 characters', { param: 'purpose' }));
      }
      // Ignored, yet held to the rule of every string the API takes (as in JSON bodies: NUL is 422).
      if (typeof fields.purpose === 'string' && fields.purpose.includes('\u0000')) {
        return reject(new AppError('parameter_unprocessable', 'Invalid purpose: strings may not contain NUL (U+0000) characters', { param: 'purpose' }));
      }
      if (!req.file) return reject(new AppError('parameter_missing', 'Missing required parameter: file (multipart/form-data field)', { param: 'file' }));
      const name = req.file.originalname ?? '';
      if (name.includes('\u0000') || name.length > 255) {
        return reject(new AppError('parameter_invalid', 'Invalid file: the filename must be at most 255 characters, without NUL', { param: 'file' }));
      }
      resolve(req.file);
    });
  });
}

/** `POST /v1/files` (multipart, field `file`), `GET /v1/files`, `GET /v1/files/{id}`. */
export function registerFileRoutes({ router, registry, services, config }: RouteDeps<{ knowledgeFiles: KnowledgeFilesService }>) {
  const tag = 'Files';
  const svc = services.knowledgeFiles;
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: config.knowledge.maxFileBytes, files: 1, fields: 5, parts: 8, fieldSize: 1024 }, defParamCharset: 'utf8' });

  defineRoute(router, registry, {
    method: 'post', path: '/v1/files', tag, raw: true, status: 201, response: FileSchema, multipartBody: FileUploadSchema,
    summary: 'Upload a document (multipart/form-data, field `file`): PDF, DOCX, HTML, Markdown or plain text',
    description: 'Anything else, or a file that cannot be parsed, is refused with 422 unsupported_file; one past the size, inflated-size, page, time or memory limits with 422 file_too_large. Nothing is stored.',
  }, async ({ req, res, principal }) => {
    const file = await receiveFile(upload, config.knowledge.maxFileBytes, req, res);
    const created = await svc.uploadFile({ ...scopeOf(principal), filename: file.originalname || 'upload', contentType: file.mimetype, data: file.buffer });
    res.status(201).json(created);
  });

  defineRoute(router, registry, { method: 'get', path: '/v1/files', summary: 'List uploaded files', tag, query: PageQuerySchema, response: listOf(FileSchema, 'FileList') },
    ({ query, principal }) => svc.listFiles({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/files/{id}', summary: 'Retrieve an uploaded file', tag, params: IdParamsSchema, response: FileSchema },
    ({ params, principal }) => svc.getFile({ ...scopeOf(principal), fileId: params.id }));
}
