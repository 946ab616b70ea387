import type { Selectable } from 'kysely';
import type { KnowledgeSourceTable } from '../db/tables/knowledge';
import { z } from '../domain/api-schema';
import { nextSyncAt } from './refresh-cadence';

export const KnowledgeRefreshSchema = z.enum(['daily', 'weekly', 'manual']);
export const KnowledgeSourceTypeSchema = z.enum(['url', 'document', 'record', 'api']);

/** The knowledge source object: the API's response schema, the presenter's type and the OpenAPI entry. */
export const KnowledgeSourceSchema = z
  .object({
    id: z.string(),
    object: z.literal('knowledge_source'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    knowledge_base_id: z.string(),
    type: KnowledgeSourceTypeSchema,
    url: z.string().nullable(),
    file_id: z.string().nullable(),
    record_count: z.number().int().optional(),
    timeout_ms: z.number().int().nullable().optional(),
    metadata: z.record(z.string(), z.string()),
    refresh: KnowledgeRefreshSchema,
    status: z.enum(['indexing', 'ready', 'failed']),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    passage_count: z.number().int(),
    embedded_passages: z
      .number()
      .int()
      .describe('Passages of the live version that have a vector (semantic search); they are embedded after the source is ready, and until then it is searched lexically'),
    version: z.number().int().nullable().describe('The version queries read; null until the first sync succeeds'),
    last_synced_at: z.string().nullable(),
    next_sync_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('KnowledgeSource');

export type KnowledgeSourceObject = z.infer<typeof KnowledgeSourceSchema>;

export type KnowledgeSourceRow = Selectable<KnowledgeSourceTable>;

export const toKnowledgeSourceObject = (row: KnowledgeSourceRow): KnowledgeSourceObject => ({
  id: row.id,
  object: 'knowledge_source',
  livemode: row.livemode,
  knowledge_base_id: row.knowledge_base_id,
  type: row.type,
  url: row.url,
  file_id: row.file_id,
  ...(row.type === 'record' && row.record_count !== null ? { record_count: row.record_count } : {}),
  ...(row.type === 'api' ? { timeout_ms: row.timeout_ms } : {}),
  metadata: row.metadata,
  refresh: row.refresh,
  status: row.status,
  error: row.error_code ? { code: row.error_code, message: row.error_message ?? row.error_code } : null,
  passage_count: row.passage_count,
  embedded_passages: row.embedded_passages,
  version: row.active_version,
  last_synced_at: row.last_synced_at?.toISOString() ?? null,
  next_sync_at: nextSyncAt(row)?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
