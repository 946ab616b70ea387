import { z } from 'zod';
import { TOP_K_DEFAULT, TOP_K_MAX } from './knowledge-retrieval.service';
import { defineRoute } from '../http/route';
import { DeletedSchema, IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import { registerFileRoutes } from './files.routes';
import type { RouteDeps } from '../http/route-deps';

const KnowledgeBaseSchema = z
  .object({
    id: z.string(),
    object: z.literal('knowledge_base'),
    name: z.string(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    source_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('KnowledgeBase');

const RefreshSchema = z.enum(['daily', 'weekly', 'manual']);

const KnowledgeSourceSchema = z
  .object({
    id: z.string(),
    object: z.literal('knowledge_source'),
    knowledge_base_id: z.string(),
    type: z.enum(['url', 'document', 'record', 'api']),
    url: z.string().nullable(),
    file_id: z.string().nullable(),
    record_count: z.number().int().optional(),
    timeout_ms: z.number().int().nullable().optional(),
    metadata: z.record(z.string(), z.string()),
    refresh: RefreshSchema,
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

/** Metadata values may be strings, numbers or booleans; they are stored and filtered as strings (as Stripe does). */
const MetadataSchema = z
  .record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean()]).transform((v) => String(v)))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

const RecordSchema = z.strictObject({
  title: z.string().min(1).max(1000),
  content: z.string().min(1).max(200_000),
  url: z.string().url().max(2048).optional(),
  metadata: MetadataSchema.optional(),
});
const RecordsSchema = z.array(RecordSchema).min(1).max(20_000);

const CreateBaseBodySchema = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  metadata: MetadataSchema.optional(),
});

const AddSourceBodySchema = z.strictObject({
  type: z.enum(['url', 'document', 'record', 'api']),
  url: z.string().max(2048).optional().describe('url and api sources'),
  file_id: z.string().max(255).optional().describe('document sources: a file from POST /v1/files'),
  records: RecordsSchema.optional().describe('record sources: rows with title and content (url, metadata optional)'),
  refresh: RefreshSchema.optional().describe('default weekly'),
  metadata: MetadataSchema.optional(),
  timeout_ms: z.number().int().min(100).max(30_000).optional().describe('api sources: how long to wait at answer time'),
});

const UpdateSourceBodySchema = z.strictObject({
  refresh: RefreshSchema.optional(),
  metadata: MetadataSchema.optional(),
  records: RecordsSchema.optional().describe('replaces every row and re-syncs'),
  timeout_ms: z.number().int().min(100).max(30_000).optional(),
});

const FilterScalar = z.union([z.string().max(500), z.number(), z.boolean()]);
const FilterSchema = z
  .record(z.string().max(40), z.union([FilterScalar, z.strictObject({ in: z.array(FilterScalar).min(1).max(100) }), z.strictObject({ eq: FilterScalar })]))
  .refine((f) => Object.keys(f).length <= 20, 'at most 20 keys')
  .describe("the passage's metadata (its source's, overlaid with its record's own) must match every key: a value (equality), {eq: value} or {in: [values]}; values compare as strings; a filter nothing matches answers no results");

const QueryBodySchema = z.strictObject({
  query: z.string().min(1).max(4000),
  top_k: z.number().int().min(1).max(TOP_K_MAX).optional().describe(`default ${TOP_K_DEFAULT}, at most ${TOP_K_MAX}`),
  filter: FilterSchema.optional(),
  min_score: z.number().min(0).max(1).optional(),
});

const QueryResultSchema = z
  .object({
    object: z.literal('knowledge_query'),
    knowledge_base_id: z.string(),
    query: z.string(),
    results: z.array(
      z.object({ source_id: z.string(), title: z.string(), snippet: z.string(), url: z.string().nullable(), score: z.number().min(0).max(1) }),
    ),
  })
  .openapi('KnowledgeQueryResult');

const SourceParamsSchema = z.strictObject({ id: z.string().min(1).max(255), src: z.string().min(1).max(255) });

export function registerKnowledgeRoutes(deps: RouteDeps) {
  const { router, registry, services } = deps;
  const tag = 'Knowledge';
  const bases = services.knowledgeBases;
  const sources = services.knowledgeSources;

  defineRoute(router, registry, { method: 'post', path: '/v1/knowledge_bases', summary: 'Create a knowledge base', tag, body: CreateBaseBodySchema, response: KnowledgeBaseSchema, status: 201 },
    ({ body, principal }) => bases.createBase({ accountId: principal.accountId, ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases', summary: 'List knowledge bases', tag, query: PageQuerySchema, response: listOf(KnowledgeBaseSchema, 'KnowledgeBaseList') },
    ({ query, principal }) => bases.listBases({ accountId: principal.accountId, page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases/{id}', summary: 'Retrieve a knowledge base', tag, params: IdParamsSchema, response: KnowledgeBaseSchema },
    ({ params, principal }) => bases.getBase({ accountId: principal.accountId, knowledgeBaseId: params.id }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/knowledge_bases/{id}', summary: 'Delete a knowledge base with its sources and their schedules', tag, params: IdParamsSchema, response: DeletedSchema },
    ({ params, principal }) => bases.deleteBase({ accountId: principal.accountId, knowledgeBaseId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/query', tag, params: IdParamsSchema, body: QueryBodySchema, response: QueryResultSchema,
    summary: 'Query a knowledge base: ranked passages with calibrated scores (no generated answer)',
    description: '409 source_indexing while every source of the base is still indexing its first version.',
  }, ({ params, body, principal }) => bases.queryBase({ accountId: principal.accountId, knowledgeBaseId: params.id, ...body }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources', tag, params: IdParamsSchema, body: AddSourceBodySchema, response: KnowledgeSourceSchema, status: 202,
    summary: 'Add a source; ingestion runs asynchronously (status indexing, then ready or failed)',
  }, ({ params, body, principal }) => sources.addSource({ principal, knowledgeBaseId: params.id, ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases/{id}/sources', summary: 'List the sources of a knowledge base', tag, params: IdParamsSchema, query: PageQuerySchema, response: listOf(KnowledgeSourceSchema, 'KnowledgeSourceList') },
    ({ params, query, principal }) => sources.listSources({ accountId: principal.accountId, knowledgeBaseId: params.id, page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases/{id}/sources/{src}', summary: 'Retrieve a source', tag, params: SourceParamsSchema, response: KnowledgeSourceSchema },
    ({ params, principal }) => sources.getSource({ accountId: principal.accountId, knowledgeBaseId: params.id, sourceId: params.src }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources/{src}', tag, params: SourceParamsSchema, body: UpdateSourceBodySchema, response: KnowledgeSourceSchema,
    summary: 'Update a source: refresh cadence, metadata, timeout; new records replace the old ones and re-sync',
  }, ({ params, body, principal }) => sources.updateSource({ principal, knowledgeBaseId: params.id, sourceId: params.src, ...body }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/knowledge_bases/{id}/sources/{src}', summary: 'Delete a source, its passages and its refresh schedule', tag, params: SourceParamsSchema, response: DeletedSchema },
    ({ params, principal }) => sources.deleteSource({ accountId: principal.accountId, knowledgeBaseId: params.id, sourceId: params.src }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources/{src}/reindex', tag, params: SourceParamsSchema, response: KnowledgeSourceSchema, status: 202,
    summary: 'Re-index a source now; the live version keeps answering until the new one is ready',
  }, ({ params, principal }) => sources.reindexSource({ accountId: principal.accountId, knowledgeBaseId: params.id, sourceId: params.src }));

  registerFileRoutes(deps);
}
