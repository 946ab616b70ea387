import type { Selectable } from 'kysely';
import type { KnowledgeFileTable } from '../db/tables/knowledge';
import { z } from '../domain/api-schema';

/** An uploaded document: the API's response schema, the presenter's type and the OpenAPI entry. */
export const FileSchema = z
  .object({
    id: z.string(),
    object: z.literal('file'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    filename: z.string(),
    bytes: z.number().int(),
    content_type: z.string(),
    format: z.enum(['pdf', 'docx', 'html', 'markdown', 'text']),
    created_at: z.string(),
  })
  .openapi('File');

export type FileObject = z.infer<typeof FileSchema>;

/** The file's bytes are never part of the object. */
export const toFileObject = (row: Omit<Selectable<KnowledgeFileTable>, 'data'>): FileObject => ({
  id: row.id,
  object: 'file',
  livemode: row.livemode,
  filename: row.filename,
  bytes: row.bytes,
  content_type: row.content_type,
  format: row.format,
  created_at: row.created_at.toISOString(),
});
