import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { KnowledgeRepo } from './knowledge.repo';
import type { PageParams } from '../db/pagination';
import { notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { detectFormat } from './ingest/document-parsers';
import { parseDocument, type DocumentParseLimits } from './ingest/document-parse';
import type { ListObject } from '../domain/api-schema';
import { toFileObject, type FileObject } from './file.schemas';
import { scopeOf, type Scope } from '../domain/principal';

/**
 * Uploaded documents. An upload is parsed before it is stored, so a file that is not PDF, DOCX, HTML,
 * Markdown or text, or that cannot be read, is refused with 422 unsupported_file and nothing is kept.
 */
export class KnowledgeFilesService {
  private readonly repo = new KnowledgeRepo();

  constructor(private readonly deps: { db: Kysely<DB>; limits: DocumentParseLimits }) {}

  async uploadFile(input: Scope & { filename: string; contentType: string; data: Buffer }): Promise<FileObject> {
    const format = detectFormat({ filename: input.filename, contentType: input.contentType, data: input.data });
    await parseDocument({ format, filename: input.filename, data: input.data, limits: this.deps.limits });
    const row = await this.repo.insertFile(this.deps.db, {
      id: newId(IdPrefix.file),
      account_id: input.accountId, livemode: input.livemode,
      filename: input.filename,
      content_type: input.contentType || 'application/octet-stream',
      format,
      bytes: input.data.length,
      data: input.data,
    });
    return toFileObject(row);
  }

  async getFile(input: Scope & { fileId: string }): Promise<FileObject> {
    const row = await this.repo.getFileById(this.deps.db, scopeOf(input), input.fileId);
    if (!row) throw notFound('file', input.fileId);
    return toFileObject(row);
  }

  async listFiles(input: Scope & { page: PageParams }): Promise<ListObject<FileObject>> {
    const page = await this.repo.listFiles(this.deps.db, scopeOf(input), input.page);
    return { object: 'list' as const, data: page.data.map(toFileObject), has_more: page.has_more };
  }
}
