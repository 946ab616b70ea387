import type { Selectable } from 'kysely';
import type { KnowledgeRecordTable } from '../db/tables/knowledge';
import { z } from '../domain/api-schema';

/** One record of a record source: the API's response schema, the presenter's type and the OpenAPI entry. */
export const KnowledgeRecordSchema = z
  .object({
    id: z.string().describe('rec_ prefix'),
    object: z.literal('knowledge_record'),
    knowledge_base_id: z.string(),
    source_id: z.string(),
    title: z.string(),
    content: z.string(),
    url: z.string().nullable(),
    metadata: z.record(z.string(), z.string()).describe("the record's own metadata, laid over the source's in filters and results"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('KnowledgeRecord');

export type KnowledgeRecordObject = z.infer<typeof KnowledgeRecordSchema>;

export const toKnowledgeRecordObject = (row: Selectable<KnowledgeRecordTable>, knowledgeBaseId: string): KnowledgeRecordObject => ({
  id: row.id,
  object: 'knowledge_record',
  knowledge_base_id: knowledgeBaseId,
  source_id: row.source_id,
  title: row.title,
  content: row.content,
  url: row.url,
  metadata: row.metadata,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
