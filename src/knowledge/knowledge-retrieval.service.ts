import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { TEXT_SEARCH_CONFIG } from './knowledge.repo';
import { AppError } from '../domain/errors';
import { POSTINGS_BUDGET, bm25Term, calibrate, idf, makeSnippet } from './index/scoring';
import type { Logger } from '../observability/logger';
import { postSignedJson } from '../platform/outbound-http';

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

type ScopeSource = {
  id: string;
  knowledge_base_id: string;
  type: string;
  url: string | null;
  status: string;
  active_version: number | null;
  passage_count: number;
  total_length: number;
  metadata: Record<string, string>;
  timeout_ms: number | null;
};

/**
 * Retrieval over one or more knowledge bases, computed in PostgreSQL: BM25 over the posting lists of
 * the live versions of the sources in scope, api sources queried live and scored on the same scale,
 * then a calibrated score in [0, 1]. The direct query endpoint and agent runs both call `retrieve`.
 */
export class KnowledgeRetrievalService {
  constructor(
    private readonly deps: { db: Kysely<DB>; allowPrivateNetwork: boolean; apiTimeoutMs: number; log?: Logger },
  ) {}

  async retrieve(input: RetrieveInput): Promise<RetrieveResult> {
    const { db } = this.deps;
    const topK = Math.min(Math.max(1, input.topK ?? TOP_K_DEFAULT), RETRIEVE_MAX);
    const minScore = input.minScore ?? 0;
    if (input.knowledgeBaseIds.length === 0) return { results: [], apiFailures: [] };

    const all = (await db
      .selectFrom('knowledge_sources')
      .select(['id', 'knowledge_base_id', 'type', 'url', 'status', 'active_version', 'passage_count', 'total_length', 'metadata', 'timeout_ms'])
      .where('account_id', '=', input.accountId)
      .where('knowledge_base_id', 'in', input.knowledgeBaseIds)
      .execute()) as ScopeSource[];
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
    const cfg = sql.lit(TEXT_SEARCH_CONFIG);
    const { rows } = await sql<{
      source_id: string; knowledge_base_id: string; s: number; sum_idf: number; title: string; heading: string | null;
      url: string | null; content: string; metadata: Record<string, string>;
    }>`
      with recursive
      q as materialized (
        select t.lexeme as term, coalesce(array_length(t.positions, 1), 1)::int as qtf, t.qi::int as qi
        from unnest(to_tsvector(${cfg}::regconfig, ${query})) with ordinality as t(lexeme, positions, weights, qi)
      ),
      scope as materialized (
        select * from unnest(${scope.map((s) => s.id)}::text[], ${scope.map((s) => s.active_version!)}::int[]) with ordinality as s(id, v, si)
      ),
      lists as materialized (
        select q.qi, s.si, k.df, k.tid
        from q cross join scope s
        cross join lateral (
          select k.df, k.ctid as tid from knowledge_terms k
          where k.source_id = s.id and k.version = s.v and k.term = q.term
          limit 1
        ) k
      ),
      terms as materialized (
        select q.qi, q.qtf, coalesce(sum(l.df), 0)::int as df,
               row_number() over (order by coalesce(sum(l.df), 0), q.qi)::int as rank,
               count(*) over ()::int as m
        from q left join lists l on l.qi = q.qi
        group by q.qi, q.qtf
      ),
      alloc (rank, qi, take, remaining) as (
        select 0, 0, 0, ${POSTINGS_BUDGET}::int
        union all
        select t.rank, t.qi, x.take, a.remaining - x.take
        from alloc a join terms t on t.rank = a.rank + 1,
             lateral (select least(t.df, greatest(a.remaining / (t.m - t.rank + 1), 1)) as take) x
      ),
      weighted as materialized (
        select t.qi, t.df, a.take, t.qtf * ln(1 + (${n}::float8 - t.df + 0.5) / (t.df + 0.5)) as w
        from terms t join alloc a on a.qi = t.qi and a.rank = t.rank
      ),
      hits as (
        select l.si, u.ord, sum(wt.w * u.imp) as s
        from lists l join weighted wt on wt.qi = l.qi,
             lateral (select case when wt.take >= wt.df then l.df else ceil(l.df * (wt.take::float8 / wt.df))::int end as cnt) c,
             lateral (select k.ords, k.imps from knowledge_terms k where k.ctid = l.tid) k,
             unnest(k.ords[1:c.cnt], k.imps[1:c.cnt]) as u(ord, imp)
        group by l.si, u.ord
        order by s desc, l.si, u.ord
        limit ${topK}
      )
      select s.id as source_id, p.knowledge_base_id, h.s, (select sum(w) from weighted) as sum_idf,
             p.title, p.heading, p.url, p.content, p.metadata
      from hits h
      join scope s on s.si = h.si
      cross join lateral (
        select * from knowledge_passages p
        where p.source_id = s.id and p.version = s.v and p.ordinal = h.ord
        limit 1
      ) p
      order by h.s desc, h.si, h.ord
    `.execute(db);
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
    const account = await this.deps.db.selectFrom('accounts').select('signing_secret').where('id', '=', input.accountId).executeTakeFirstOrThrow();
    const failures: { sourceId: string; error: string }[] = [];
    const docs: { source: ScopeSource; title: string; content: string; url: string | null }[] = [];
    await Promise.all(
      apis.map(async (source) => {
        const body = JSON.stringify({ query: input.query, top_k: topK, knowledge_base_id: source.knowledge_base_id, source_id: source.id });
        try {
          const res = await postSignedJson({
            url: source.url!,
            secret: account.signing_secret,
            body,
            timeoutMs: source.timeout_ms ?? this.deps.apiTimeoutMs,
            allowPrivate: this.deps.allowPrivateNetwork,
          });
          if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
          const parsed = JSON.parse(res.body) as unknown;
          const list = Array.isArray(parsed) ? parsed : (parsed as { results?: unknown })?.results;
          if (!Array.isArray(list)) throw new Error('the answer has no results array');
          for (const item of list.slice(0, TOP_K_MAX) as Record<string, unknown>[]) {
            const content = String(item?.content ?? item?.snippet ?? item?.text ?? '').trim();
            if (!content) continue;
            docs.push({ source, title: String(item.title ?? '').trim() || 'Untitled', content, url: typeof item.url === 'string' ? item.url : null });
          }
        } catch (err) {
          failures.push({ sourceId: source.id, error: (err as Error).message });
          this.deps.log?.warn({ sourceId: source.id, err: (err as Error).message }, 'Api knowledge source failed');
        }
      }),
    );
    if (docs.length === 0) return { results: [] as RetrievedPassage[], failures };

    const cfg = sql.lit(TEXT_SEARCH_CONFIG);
    const texts = docs.map((d) => `${d.title} ${d.content}`);
    const [tokens, weights] = await Promise.all([
      sql<{ i: number; term: string; tf: number }>`
        select d.i::int as i, t.lexeme as term, coalesce(array_length(t.positions, 1), 1) as tf
        from unnest(${texts}::text[]) with ordinality as d(txt, i), unnest(to_tsvector(${cfg}::regconfig, d.txt)) t
      `.execute(this.deps.db),
      sql<{ term: string; qtf: number; df: number }>`
        with q as (
          select lexeme as term, coalesce(array_length(positions, 1), 1) as qtf from unnest(to_tsvector(${cfg}::regconfig, ${input.query}))
        )
        select q.term, q.qtf,
          coalesce((select sum(k.df) from knowledge_terms k
                    join unnest(${indexed.map((s) => s.id)}::text[], ${indexed.map((s) => s.active_version ?? 0)}::int[]) as s(id, v)
                      on k.source_id = s.id and k.version = s.v
                    where k.term = q.term), 0)::float8 as df
        from q
      `.execute(this.deps.db),
    ]);
    const perDoc = docs.map(() => new Map<string, number>());
    for (const t of tokens.rows) perDoc[t.i - 1]!.set(t.term, t.tf);
    const lens = perDoc.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
    // The api results join the collection for idf and length normalisation.
    const total = n + docs.length;
    const avg = n > 0 ? avgLen : Math.max(1, lens.reduce((a, b) => a + b, 0) / docs.length);
    const w = weights.rows.map((q) => {
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
