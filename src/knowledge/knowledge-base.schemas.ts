import type { Selectable } from 'kysely';
import type { KnowledgeBaseTable } from '../db/tables/knowledge';
import { z } from '../domain/api-schema';
import type { RetrievedPassage } from './knowledge-retrieval.service';

/** The knowledge base object: the API's response schema, the presenter's type and the OpenAPI entry. */
export const KnowledgeBaseSchema = z
  .object({
    id: z.string(),
    object: z.literal('knowledge_base'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    name: z.string(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    source_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('KnowledgeBase');

export type KnowledgeBaseObject = z.infer<typeof KnowledgeBaseSchema>;

export const toKnowledgeBaseObject = (row: Selectable<KnowledgeBaseTable>, sourceCount: number): KnowledgeBaseObject => ({
  id: row.id,
  object: 'knowledge_base',
  livemode: row.livemode,
  name: row.name,
  description: row.description,
  metadata: row.metadata,
  source_count: sourceCount,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** A direct query of a knowledge base: ranked passages with calibrated scores, no generated answer. */
export const KnowledgeQueryResultSchema = z
  .object({
    object: z.literal('knowledge_query'),
    knowledge_base_id: z.string(),
    query: z.string(),
    results: z.array(
      z.object({
        source_id: z.string(),
        title: z.string(),
        snippet: z.string(),
        url: z.string().nullable(),
        score: z
          .number()
          .min(0)
          .max(1)
          .describe(
            'Calibrated probability that this passage answers the query (0.8: about 8 in 10 passages scored 0.8 do). ' +
              'The same scale across queries and knowledge bases of any size: `min_score` and agents\' `confidence_floor` read it.',
          ),
      }),
    ),
  })
  .openapi('KnowledgeQueryResult');

export type KnowledgeQueryResultObject = z.infer<typeof KnowledgeQueryResultSchema>;

export const toKnowledgeQueryResultObject = (input: { knowledgeBaseId: string; query: string; results: RetrievedPassage[] }): KnowledgeQueryResultObject => ({
  object: 'knowledge_query',
  knowledge_base_id: input.knowledgeBaseId,
  query: input.query,
  results: input.results.map((r) => ({ source_id: r.sourceId, title: r.heading ? `${r.title} › ${r.heading}` : r.title, snippet: r.snippet, url: r.url, score: r.score })),
});
