import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { KnowledgeRepo } from './knowledge.repo';
import type { PageParams } from '../db/pagination';
import { notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import type { KnowledgeRetrievalService } from './knowledge-retrieval.service';
import type { MetadataFilter } from './metadata-filter';
import type { KnowledgeSourcesService } from './knowledge-sources.service';
import type { ListObject } from '../domain/api-schema';
import {
  toKnowledgeBaseObject,
  toKnowledgeQueryResultObject,
  type KnowledgeBaseObject,
  type KnowledgeQueryResultObject,
} from './knowledge-base.schemas';
import { scopeOf, type Scope } from '../domain/principal';

export interface QueryKnowledgeBaseInput {
  accountId: string;
  livemode: boolean;
  knowledgeBaseId: string;
  query: string;
  top_k?: number;
  filter?: MetadataFilter;
  min_score?: number;
}

/** Knowledge bases and their direct query (ranked passages, no generated answer). */
export class KnowledgeBasesService {
  private readonly repo = new KnowledgeRepo();

  constructor(
    private readonly deps: { db: Kysely<DB>; sources: KnowledgeSourcesService; retrieval: KnowledgeRetrievalService },
  ) {}

  async createBase(input: Scope & { name: string; description?: string; metadata?: Record<string, string> }): Promise<KnowledgeBaseObject> {
    const row = await this.repo.insertBase(this.deps.db, {
      id: newId(IdPrefix.knowledgeBase),
      account_id: input.accountId, livemode: input.livemode,
      name: input.name,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
    });
    return toKnowledgeBaseObject(row, 0);
  }

  private async getBaseRow(scope: Scope, id: string) {
    const row = await this.repo.getBaseById(this.deps.db, scope, id);
    if (!row) throw notFound('knowledge base', id);
    return row;
  }

  async getBase(input: Scope & { knowledgeBaseId: string }): Promise<KnowledgeBaseObject> {
    const row = await this.getBaseRow(scopeOf(input), input.knowledgeBaseId);
    const counts = await this.repo.countSourcesByBase(this.deps.db, [row.id]);
    return toKnowledgeBaseObject(row, counts.get(row.id) ?? 0);
  }

  async listBases(input: Scope & { page: PageParams }): Promise<ListObject<KnowledgeBaseObject>> {
    const page = await this.repo.listBases(this.deps.db, scopeOf(input), input.page);
    const counts = await this.repo.countSourcesByBase(this.deps.db, page.data.map((b) => b.id));
    return { object: 'list' as const, data: page.data.map((b) => toKnowledgeBaseObject(b, counts.get(b.id) ?? 0)), has_more: page.has_more };
  }

  /** Deletes the base with its sources, their refresh schedules, passages and index. */
  async deleteBase(input: Scope & { knowledgeBaseId: string }) {
    const row = await this.getBaseRow(scopeOf(input), input.knowledgeBaseId);
    await this.deps.sources.deleteSchedulesOfBase(row.id);
    await this.repo.deleteBase(this.deps.db, scopeOf(input), row.id);
    return { id: row.id, object: 'knowledge_base', deleted: true as const };
  }

  async queryBase(input: QueryKnowledgeBaseInput): Promise<KnowledgeQueryResultObject> {
    await this.getBaseRow(scopeOf(input), input.knowledgeBaseId);
    const { results } = await this.deps.retrieval.retrieve({
      accountId: input.accountId,
      knowledgeBaseIds: [input.knowledgeBaseId],
      query: input.query,
      topK: input.top_k,
      filter: input.filter,
      minScore: input.min_score,
    });
    return toKnowledgeQueryResultObject({ knowledgeBaseId: input.knowledgeBaseId, query: input.query, results });
  }
}
