import { z } from 'zod';
import { TOP_K_DEFAULT, TOP_K_MAX } from './knowledge-retrieval.service';
import { defineRoute } from '../http/route';
import { DeletedSchema, HttpUrlSchema, IdParamsSchema, PageQuerySchema, listOf } from '../http/schemas';
import { registerFileRoutes } from './files.routes';
import type { RouteDeps } from '../http/route-deps';
import type { KnowledgeBasesService } from './knowledge-bases.service';
import type { KnowledgeFilesService } from './knowledge-files.service';
import type { KnowledgeSourcesService } from './knowledge-sources.service';
import type { KnowledgeRecordsService } from './knowledge-records.service';
import { KnowledgeRecordSchema } from './knowledge-record.schemas';
import { KnowledgeBaseSchema, KnowledgeQueryResultSchema } from './knowledge-base.schemas';
import { KnowledgeRefreshSchema, KnowledgeSourceSchema, KnowledgeSourceTypeSchema } from './knowledge-source.schemas';
import { scopeOf } from '../domain/principal';

/** Metadata values may be strings, numbers or booleans; they are stored and filtered as strings (as Stripe does). */
const MetadataSchema = z
  .record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean()]).transform((v) => String(v)))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .openapi({ maxProperties: 50, propertyNames: { maxLength: 40 } } as Record<string, unknown>);

const RecordSchema = z.strictObject({
  title: z.string().min(1).max(1000),
  content: z.string().min(1).max(200_000),
  url: HttpUrlSchema.optional(),
  metadata: MetadataSchema.optional(),
});
const RecordsSchema = z.array(RecordSchema).min(1).max(20_000);

const CreateBaseBodySchema = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  metadata: MetadataSchema.optional(),
});

const sourceCommon = {
  refresh: KnowledgeRefreshSchema.optional().describe('default weekly'),
  metadata: MetadataSchema.optional(),
};
/** One shape per source type (the fields each takes, and only those), told apart by `type`. */
const AddSourceBodySchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('url'), url: HttpUrlSchema.describe('start page; the crawl stays under its host and path'), ...sourceCommon }),
  z.strictObject({ type: z.literal('document'), file_id: z.string().min(1).max(255).describe('a file from POST /v1/files'), ...sourceCommon }),
  z.strictObject({ type: z.literal('record'), records: RecordsSchema.describe('rows with title and content (url, metadata optional)'), ...sourceCommon }),
  z.strictObject({
    type: z.literal('api'),
    url: HttpUrlSchema.describe('queried at answer time with a signed POST'),
    timeout_ms: z.number().int().min(100).max(30_000).optional().describe('how long to wait at answer time'),
    ...sourceCommon,
  }),
]);

const UpdateSourceBodySchema = z.strictObject({
  refresh: KnowledgeRefreshSchema.optional(),
  metadata: MetadataSchema.optional(),
  records: RecordsSchema.optional().describe('record sources only (else 422): replaces every row and re-syncs'),
  timeout_ms: z.number().int().min(100).max(30_000).optional().describe('api sources only (else 422)'),
});

const FilterScalar = z.union([z.string().max(500), z.number(), z.boolean()]);
const FilterSchema = z
  .record(z.string().max(40), z.union([FilterScalar, z.strictObject({ in: z.array(FilterScalar).min(1).max(100) }), z.strictObject({ eq: FilterScalar })]))
  .refine((f) => Object.keys(f).length <= 20, 'at most 20 keys')
  .openapi({ maxProperties: 20, propertyNames: { maxLength: 40 } } as Record<string, unknown>)
  .describe('source metadata must match every key: a value (equality), {eq: value} or {in: [values]}');

const QueryBodySchema = z.strictObject({
  query: z.string().min(1).max(4000),
  top_k: z.number().int().min(1).max(TOP_K_MAX).optional().describe(`default ${TOP_K_DEFAULT}, at most ${TOP_K_MAX}`),
  filter: FilterSchema.optional(),
  min_score: z.number().min(0).max(1).optional().describe('Drops passages whose score (a calibrated probability that the passage answers) is below this.'),
});

const SourceParamsSchema = z.strictObject({ id: z.string().min(1).max(255), src: z.string().min(1).max(255) });
const RecordParamsSchema = SourceParamsSchema.extend({ record_id: z.string().min(1).max(255) });

/** A record's fields, each with the limits of a record pushed with its source; those left out are kept. */
const UpdateRecordBodySchema = z.strictObject({
  title: RecordSchema.shape.title.optional(),
  content: RecordSchema.shape.content.optional(),
  url: HttpUrlSchema.nullable().optional().describe('null removes it'),
  metadata: MetadataSchema.optional().describe("replaces the record's own metadata"),
});
const recordReindexNote = 'Only this record is re-indexed: its passages are replaced in the live version at once (other records\' passages stay as they are) and embedded in the background; the source emits knowledge.source.ready.';

export function registerKnowledgeRoutes(
  deps: RouteDeps<{ knowledgeBases: KnowledgeBasesService; knowledgeSources: KnowledgeSourcesService; knowledgeFiles: KnowledgeFilesService; knowledgeRecords: KnowledgeRecordsService }>,
) {
  const { router, registry, services } = deps;
  const tag = 'Knowledge';
  const bases = services.knowledgeBases;
  const sources = services.knowledgeSources;

  defineRoute(router, registry, { method: 'post', path: '/v1/knowledge_bases', summary: 'Create a knowledge base', tag, body: CreateBaseBodySchema, response: KnowledgeBaseSchema, status: 201 },
    ({ body, principal }) => bases.createBase({ ...scopeOf(principal), ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases', summary: 'List knowledge bases', tag, query: PageQuerySchema, response: listOf(KnowledgeBaseSchema, 'KnowledgeBaseList') },
    ({ query, principal }) => bases.listBases({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases/{id}', summary: 'Retrieve a knowledge base', tag, params: IdParamsSchema, response: KnowledgeBaseSchema },
    ({ params, principal }) => bases.getBase({ ...scopeOf(principal), knowledgeBaseId: params.id }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/knowledge_bases/{id}', summary: 'Delete a knowledge base with its sources and their schedules', tag, params: IdParamsSchema, response: DeletedSchema },
    ({ params, principal }) => bases.deleteBase({ ...scopeOf(principal), knowledgeBaseId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/query', tag, params: IdParamsSchema, body: QueryBodySchema, response: KnowledgeQueryResultSchema,
    summary: 'Query a knowledge base: ranked passages with calibrated scores (no generated answer)',
    description: '409 source_indexing while every source of the base is still indexing its first version.',
  }, ({ params, body, principal }) => bases.queryBase({ ...scopeOf(principal), knowledgeBaseId: params.id, ...body }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources', tag, params: IdParamsSchema, body: AddSourceBodySchema, response: KnowledgeSourceSchema, status: 202,
    summary: 'Add a source; ingestion runs asynchronously (status indexing, then ready or failed)',
  }, ({ params, body, principal }) => sources.addSource({ principal, knowledgeBaseId: params.id, ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases/{id}/sources', summary: 'List the sources of a knowledge base', tag, params: IdParamsSchema, query: PageQuerySchema, response: listOf(KnowledgeSourceSchema, 'KnowledgeSourceList') },
    ({ params, query, principal }) => sources.listSources({ ...scopeOf(principal), knowledgeBaseId: params.id, page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/knowledge_bases/{id}/sources/{src}', summary: 'Retrieve a source', tag, params: SourceParamsSchema, response: KnowledgeSourceSchema },
    ({ params, principal }) => sources.getSource({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources/{src}', tag, params: SourceParamsSchema, body: UpdateSourceBodySchema, response: KnowledgeSourceSchema,
    summary: 'Update a source: refresh cadence, metadata, timeout; new records replace the old ones and re-sync',
  }, ({ params, body, principal }) => sources.updateSource({ principal, knowledgeBaseId: params.id, sourceId: params.src, ...body }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/knowledge_bases/{id}/sources/{src}', summary: 'Delete a source, its passages and its refresh schedule', tag, params: SourceParamsSchema, response: DeletedSchema },
    ({ params, principal }) => sources.deleteSource({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources/{src}/reindex', tag, params: SourceParamsSchema, response: KnowledgeSourceSchema, status: 202,
    summary: 'Re-index a source now; the live version keeps answering until the new one is ready',
  }, ({ params, principal }) => sources.reindexSource({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src }));

  const records = services.knowledgeRecords;
  const withoutReindex = <T extends { reindex: unknown }>({ reindex: _reindex, ...record }: T) => record;

  defineRoute(router, registry, {
    method: 'get', path: '/v1/knowledge_bases/{id}/sources/{src}/records', tag, params: SourceParamsSchema, query: PageQuerySchema, response: listOf(KnowledgeRecordSchema, 'KnowledgeRecordList'),
    summary: 'List the records of a record source, in their order', description: '422 source_not_record for a url, document or api source.',
  }, ({ params, query, principal }) => records.listRecords({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src, page: query }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources/{src}/records', tag, params: SourceParamsSchema, body: RecordSchema, response: KnowledgeRecordSchema, status: 201,
    summary: 'Add one record to a record source', description: recordReindexNote,
  }, async ({ params, body, principal }) => withoutReindex(await records.addRecord({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src, record: body })));

  defineRoute(router, registry, {
    method: 'get', path: '/v1/knowledge_bases/{id}/sources/{src}/records/{record_id}', tag, params: RecordParamsSchema, response: KnowledgeRecordSchema,
    summary: 'Retrieve one record of a record source',
  }, ({ params, principal }) => records.getRecord({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src, recordId: params.record_id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/knowledge_bases/{id}/sources/{src}/records/{record_id}', tag, params: RecordParamsSchema, body: UpdateRecordBodySchema, response: KnowledgeRecordSchema,
    summary: 'Update one record (fields left out are kept)', description: recordReindexNote,
  }, async ({ params, body, principal }) => withoutReindex(await records.updateRecord({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src, recordId: params.record_id, patch: body })));

  defineRoute(router, registry, {
    method: 'delete', path: '/v1/knowledge_bases/{id}/sources/{src}/records/{record_id}', tag, params: RecordParamsSchema, response: DeletedSchema,
    summary: 'Delete one record; its passages leave the index at once',
  }, ({ params, principal }) => records.deleteRecord({ ...scopeOf(principal), knowledgeBaseId: params.id, sourceId: params.src, recordId: params.record_id }));

  registerFileRoutes(deps);
}
