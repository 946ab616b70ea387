import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { LexicalIndexRepo, type ScopeSource } from './index/lexical-index.repo';
import { AppError } from '../domain/errors';
import { POSTINGS_BUDGET, bm25Term, calibrate, idf, makeSnippet } from './index/scoring';
import type { Logger } from '../observability/logger';
import type { AccountsService } from '../accounts/accounts.service';
import { queryApiSource } from './index/api-source.client';

/** Equality (`"en"`), or `{in: [...]}`, or `{eq: "en"}`, per metadata key; keys combine with AND. */
export type MetadataFilterValue = string | number | boolean | { in: (string | number | boolean)[] } | { eq: string | number | boolean };
export type MetadataFilter = Record<string, MetadataFilterValue>;

export interface RetrieveInput {
  accountId: string;
  knowledgeBaseIds: string[];
  query: string;
  /** Passages to return; default 5, at most 100 (the API caps it at 50). */
  topK?: number;
  /** Only sources whose metadata matches. */
  filter?: MetadataFilter;
  /** Drops passages whose calibrated score is below this (0 to 1). */
  minScore?: number;
}

export interface RetrievedPassage {
  sourceId: string;
  knowledgeBaseId: string;
  title: string;
  heading: string | null;
  snippet: string;
  /** The whole passage, for grounding a reply. */
  content: string;
  url: string | null;
  /** Calibrated relevance in [0, 1]. */
  score: number;
  origin: 'index' | 'api';
  metadata: Record<string, string>;
}

export interface RetrieveResult {
  results: RetrievedPassage[];
  /** Api sources that did not answer in time or answered badly; their results are missing. */
  apiFailures: { sourceId: string; error: string }[];
}

export const TOP_K_DEFAULT = 5;
export const TOP_K_MAX = 50;
/** Internal callers (agents, evaluation) may ask for more candidates than the API allows. */
export const RETRIEVE_MAX = 100;

export function matchesFilter(metadata: Record<string, string>, filter: MetadataFilter | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, cond]) => {
    const value = metadata[key];
    if (value === undefined) return false;
    if (typeof cond === 'object' && cond !== null && 'in' in cond) return cond.in.map(String).includes(value);
    if (typeof cond === 'object' && cond !== null && 'eq' in cond) return String(cond.eq) === value;
    return String(cond) === value;
  });
}


/**
 * Retrieval over one or more knowledge bases, computed in PostgreSQL: BM25 over the posting lists of
 * the live versions of the sources in scope, api sources queried live and scored on the same scale,
 * then a calibrated score in [0, 1]. The direct query endpoint and agent runs both call `retrieve`.
 */
export class KnowledgeRetrievalService {
  private readonly index = new LexicalIndexRepo();

  constructor(
    private readonly deps: { db: Kysely<DB>; accounts: AccountsService; allowPrivateNetwork: boolean; apiTimeoutMs: number; log?: Logger },
  ) {}

  async retrieve(input: RetrieveInput): Promise<RetrieveResult> {
    const { db } = this.deps;
    const topK = Math.min(Math.max(1, input.topK ?? TOP_K_DEFAULT), RETRIEVE_MAX);
    const minScore = input.minScore ?? 0;
    if (input.knowledgeBaseIds.length === 0) return { results: [], apiFailures: [] };

    const all = await this.index.listScopeSources(db, { accountId: input.accountId, knowledgeBaseIds: input.knowledgeBaseIds });
    const live = all.filter((s) => s.active_version !== null);
    if (live.length === 0 && all.some((s) => s.status === 'indexing')) {
      throw new AppError('source_indexing', 'The knowledge base has no ready source yet: its sources are still indexing. Retry when knowledge.source.ready arrives.');
    }
    const scope = live.filter((s) => matchesFilter(s.metadata, input.filter));
    const indexed = scope.filter((s) => s.type !== 'api' && s.passage_count > 0);
    const apis = scope.filter((s) => s.type === 'api');
    const n = indexed.reduce((a, s) => a + s.passage_count, 0);
    const avgLen = n > 0 ? Math.max(1, indexed.reduce((a, s) => a + s.total_length, 0) / n) : 1;

    const [lexical, external] = await Promise.all([
      indexed.length ? this.searchIndex(input.query, indexed, n, topK) : Promise.resolve([]),
      apis.length ? this.queryApiSources(input, apis, topK, indexed, n, avgLen) : Promise.resolve({ results: [], failures: [] }),
    ]);
    const results = [...lexical, ...external.results]
      .filter((r) => r.score > 0 && r.score >= minScore)
      .sort((a, b) => b.score - a.score)
      .slice(0, topK);
    return { results, apiFailures: external.failures };
  }

  /**
   * BM25 in SQL over the posting lists of the scope's live versions, in one round trip: each (query term,
   * source) list is looked up once by primary key (a forced index probe, whatever the table statistics
   * say), the terms' document frequencies and idf weights come from those lists, the postings budget is
   * shared out rarest terms first (the water-filling of `allocatePostings`), and each list is read whole
   * or, for common terms past the budget, from its high-impact head (fetched again by its row address,
   * which is stable within the statement). Postings are summed per passage on
   * integer keys (the source's position in the scope, the ordinal). Returns the top `topK` passages.
   */
  private async searchIndex(query: string, scope: ScopeSource[], n: number, topK: number): Promise<RetrievedPassage[]> {
    const { db } = this.deps;
    const rows = await this.index.searchPostings(db, { query, scope, n, topK, budget: POSTINGS_BUDGET });
    return rows.map((r) => ({
      sourceId: r.source_id,
      knowledgeBaseId: r.knowledge_base_id,
      title: r.title,
      heading: r.heading,
      snippet: makeSnippet(r.content, query),
      content: r.content,
      url: r.url,
      score: calibrate(r.s, r.sum_idf),
      origin: 'index' as const,
      metadata: r.metadata,
    }));
  }

  /**
   * Asks each api source for passages (signed POST `{query, top_k, knowledge_base_id, source_id}`, with
   * the source's timeout), then scores what they return with the same BM25 against the base's statistics.
   * A source that fails or times out is skipped and reported.
   */
  private async queryApiSources(input: RetrieveInput, apis: ScopeSource[], topK: number, indexed: ScopeSource[], n: number, avgLen: number) {
    const secret = await this.deps.accounts.getSigningSecret({ accountId: input.accountId });
    const failures: { sourceId: string; error: string }[] = [];
    const docs: { source: ScopeSource; title: string; content: string; url: string | null }[] = [];
    await Promise.all(
      apis.map(async (source) => {
        try {
          const found = await queryApiSource({
            url: source.url!,
            secret,
            knowledgeBaseId: source.knowledge_base_id,
            sourceId: source.id,
            query: input.query,
            topK,
            timeoutMs: source.timeout_ms ?? this.deps.apiTimeoutMs,
            allowPrivate: this.deps.allowPrivateNetwork,
          }, TOP_K_MAX);
          for (const d of found) docs.push({ source, ...d });
        } catch (err) {
          failures.push({ sourceId: source.id, error: (err as Error).message });
          this.deps.log?.warn({ sourceId: source.id, err: (err as Error).message }, 'Api knowledge source failed');
        }
      }),
    );
    if (docs.length === 0) return { results: [] as RetrievedPassage[], failures };

    const texts = docs.map((d) => `${d.title} ${d.content}`);
    const [tokens, weights] = await Promise.all([
      this.index.tokenizeTexts(this.deps.db, texts),
      this.index.queryTermStats(this.deps.db, { query: input.query, sources: indexed.map((s) => ({ id: s.id, version: s.active_version ?? 0 })) }),
    ]);
    const perDoc = docs.map(() => new Map<string, number>());
    for (const t of tokens) perDoc[t.i - 1]!.set(t.term, t.tf);
    const lens = perDoc.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
    // The api results join the collection for idf and length normalisation.
    const total = n + docs.length;
    const avg = n > 0 ? avgLen : Math.max(1, lens.reduce((a, b) => a + b, 0) / docs.length);
    const w = weights.map((q) => {
      const df = q.df + perDoc.filter((m) => m.has(q.term)).length;
      return { term: q.term, weight: q.qtf * idf(total, df) };
    });
    const sumIdf = w.reduce((a, x) => a + x.weight, 0);
    const results: RetrievedPassage[] = docs.map((d, i) => {
      const bm25 = w.reduce((acc, x) => {
        const tf = perDoc[i]!.get(x.term);
        return tf ? acc + bm25Term(x.weight, tf, lens[i]!, avg) : acc;
      }, 0);
      return {
        sourceId: d.source.id,
        knowledgeBaseId: d.source.knowledge_base_id,
        title: d.title,
        heading: null,
        snippet: makeSnippet(d.content, input.query),
        content: d.content,
        url: d.url,
        score: calibrate(bm25, sumIdf),
        origin: 'api',
        metadata: d.source.metadata,
      };
    });
    return { results, failures };
  }
}
