import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema';
import { TEXT_SEARCH_CONFIG } from '../knowledge.repo';
import { analyzerSql } from './analyzers';

type Db = Kysely<DB> | Transaction<DB>;

/** A source in a retrieval's scope: its live version and the statistics BM25 needs. */
export interface ScopeSource {
  id: string;
  knowledge_base_id: string;
  /** The source's mode (its api queries are signed with that mode's secret). */
  livemode: boolean;
  type: string;
  url: string | null;
  status: string;
  active_version: number | null;
  passage_count: number;
  total_length: number;
  metadata: Record<string, string>;
  timeout_ms: number | null;
  /** Passages of the active version with a vector (the semantic backfill's progress). */
  embedded_passages: number;
  /** Text search configurations its live version was indexed with. */
  analyzers: string[];
}

export interface LexicalHit {
  source_id: string;
  knowledge_base_id: string;
  ordinal: number;
  content_hash: Buffer | null;
  /** BM25 score. */
  s: number;
  /** Sum of the query terms' idf weights (the calibration's scale). */
  sum_idf: number;
  title: string;
  heading: string | null;
  url: string | null;
  content: string;
  metadata: Record<string, string>;
  own_metadata: Record<string, string>;
}

/**
 * Passage-level filter: for record sources, a passage's metadata is the source's current metadata overlaid
 * with its record's own. `filter` maps each key to its allowed values (as strings). The passage row is
 * `p`, its source row `ks`.
 */
export interface PassageFilter {
  /** Sources whose passages are checked one by one (the others were kept or dropped as a whole). */
  sourceIds: string[];
  filter: Record<string, string[]>;
}

export function passageMatches(filter: Record<string, string[]>): RawBuilder<boolean> {
  return sql<boolean>`not exists (
    select 1 from jsonb_each(${JSON.stringify(filter)}::jsonb) f(k, vals)
    where not exists (
      select 1 from jsonb_array_elements_text(f.vals) v(x)
      where v.x = coalesce(p.own_metadata ->> f.k, ks.metadata ->> f.k)
    )
  )`;
}

/** The lexical index's SQL: scope lookup, BM25 over posting lists, and term statistics for api results. */
export class LexicalIndexRepo {
  async listScopeSources(db: Db, input: { accountId: string; knowledgeBaseIds: string[] }): Promise<ScopeSource[]> {
    return (await db
      .selectFrom('knowledge_sources')
      .select(['id', 'knowledge_base_id', 'livemode', 'type', 'url', 'status', 'active_version', 'passage_count', 'total_length', 'metadata', 'timeout_ms', 'embedded_passages', 'analyzers'])
      .where('account_id', '=', input.accountId)
      .where('knowledge_base_id', 'in', input.knowledgeBaseIds)
      .execute()) as ScopeSource[];
  }

  /**
   * BM25 in SQL over the posting lists of the scope's live versions, in one round trip: each (query term,
   * source) list is looked up once by primary key (a forced index probe, whatever the table statistics
   * say), the terms' document frequencies and idf weights come from those lists, the postings budget is
   * shared out rarest terms first (the water-filling of `allocatePostings`), and each list is read whole
   * or, for common terms past the budget, from its high-impact head (fetched again by its row address,
   * which is stable within the statement). Postings are summed per passage on integer keys (the source's
   * position in the scope, the ordinal). Returns the top `topK` passages.
   */
  async searchPostings(
    db: Db,
    input: { query: string; scope: ScopeSource[]; n: number; topK: number; budget: number; passageFilter?: PassageFilter },
  ): Promise<LexicalHit[]> {
    // The query is read by every analyzer of the scope (the union of their terms); a passage's score is
    // normalised by the idf of the terms its own analyzer produces.
    const analyzers = [...new Set(input.scope.flatMap((s) => (s.analyzers?.length ? s.analyzers : [TEXT_SEARCH_CONFIG])))];
    const pf = input.passageFilter;
    const having = pf
      ? sql`not exists (select 1 from scope sc where sc.si = l.si and sc.id = any(${pf.sourceIds}::text[]))
            or exists (
              select 1 from scope sc
              join knowledge_passages p on p.source_id = sc.id and p.version = sc.v and p.ordinal = u.ord
              join knowledge_sources ks on ks.id = sc.id
              where sc.si = l.si and ${passageMatches(pf.filter)}
            )`
      : sql`true`;
    const { rows } = await sql<LexicalHit>`
      with recursive
      q as materialized (
        select t.lexeme as term, max(coalesce(array_length(t.positions, 1), 1))::int as qtf,
               row_number() over (order by t.lexeme)::int as qi, array_agg(a.cfg) as cfgs
        from unnest(${analyzers}::text[]) as a(cfg), unnest(to_tsvector(a.cfg::regconfig, ${input.query})) as t(lexeme, positions, weights)
        group by t.lexeme
      ),
      scope as materialized (
        select * from unnest(${input.scope.map((s) => s.id)}::text[], ${input.scope.map((s) => s.active_version!)}::int[]) with ordinality as s(id, v, si)
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
        select 0, 0, 0, ${input.budget}::int
        union all
        select t.rank, t.qi, x.take, a.remaining - x.take
        from alloc a join terms t on t.rank = a.rank + 1,
             lateral (select least(t.df, greatest(a.remaining / (t.m - t.rank + 1), 1)) as take) x
      ),
      weighted as materialized (
        select t.qi, t.df, a.take, t.qtf * ln(1 + (${input.n}::float8 - t.df + 0.5) / (t.df + 0.5)) as w
        from terms t join alloc a on a.qi = t.qi and a.rank = t.rank
      ),
      hits as (
        select l.si, u.ord, sum(wt.w * u.imp) as s
        from lists l join weighted wt on wt.qi = l.qi,
             lateral (select case when wt.take >= wt.df then l.df else ceil(l.df * (wt.take::float8 / wt.df))::int end as cnt) c,
             lateral (select k.ords, k.imps from knowledge_terms k where k.ctid = l.tid) k,
             unnest(k.ords[1:c.cnt], k.imps[1:c.cnt]) as u(ord, imp)
        group by l.si, u.ord
        having ${having}
        order by s desc, l.si, u.ord
        limit ${input.topK}
      )
      select s.id as source_id, p.knowledge_base_id, h.ord as ordinal, p.content_hash, h.s,
             (select sum(wt.w) from weighted wt join q on q.qi = wt.qi where ${analyzerSql(sql`p.metadata`)} = any(q.cfgs)) as sum_idf,
             p.title, p.heading, p.url, p.content, p.metadata, p.own_metadata
      from hits h
      join scope s on s.si = h.si
      cross join lateral (
        select * from knowledge_passages p
        where p.source_id = s.id and p.version = s.v and p.ordinal = h.ord
        limit 1
      ) p
      order by h.s desc, h.si, h.ord
    `.execute(db);
    return rows;
  }

  /**
   * Exact BM25 (and the calibration's idf sum) of given passages for a query, with the same statistics
   * as `searchPostings`: for candidates the dense side found, so they fuse with a real lexical score
   * rather than none. The query's lists in the candidates' sources are read once each, and their postings
   * kept for the candidate ordinals.
   */
  async scorePassages(
    db: Db,
    input: { query: string; scope: ScopeSource[]; n: number; keys: { sourceId: string; ordinal: number }[] },
  ): Promise<{ source_id: string; ordinal: number; s: number; sum_idf: number }[]> {
    if (input.keys.length === 0) return [];
    const analyzers = [...new Set(input.scope.flatMap((s) => (s.analyzers?.length ? s.analyzers : [TEXT_SEARCH_CONFIG])))];
    const { rows } = await sql<{ source_id: string; ordinal: number; s: number; sum_idf: number }>`
      with
      q as materialized (
        select t.lexeme as term, max(coalesce(array_length(t.positions, 1), 1))::int as qtf,
               row_number() over (order by t.lexeme)::int as qi, array_agg(a.cfg) as cfgs
        from unnest(${analyzers}::text[]) as a(cfg), unnest(to_tsvector(a.cfg::regconfig, ${input.query})) as t(lexeme, positions, weights)
        group by t.lexeme
      ),
      scope as materialized (
        select * from unnest(${input.scope.map((s) => s.id)}::text[], ${input.scope.map((s) => s.active_version!)}::int[]) as s(id, v)
      ),
      dfs as materialized (
        -- document frequencies over the whole scope (the list arrays stay untouched)
        select q.qi, sum(k.df)::float8 as df
        from q cross join scope s
        cross join lateral (
          select k.df from knowledge_terms k
          where k.source_id = s.id and k.version = s.v and k.term = q.term
          limit 1
        ) k
        group by q.qi
      ),
      weighted as materialized (
        select q.qi, q.cfgs, q.qtf * ln(1 + (${input.n}::float8 - coalesce(d.df, 0) + 0.5) / (coalesce(d.df, 0) + 0.5)) as w
        from q left join dfs d on d.qi = q.qi
      ),
      cand as (
        select * from unnest(${input.keys.map((k) => k.sourceId)}::text[], ${input.keys.map((k) => k.ordinal)}::int[]) as c(source_id, ord)
      ),
      lists as materialized (
        -- the lists themselves only in the candidates' sources
        select q.qi, s.id, k.ords, k.imps
        from q cross join scope s
        cross join lateral (
          select k.ords, k.imps from knowledge_terms k
          where k.source_id = s.id and k.version = s.v and k.term = q.term
          limit 1
        ) k
        where s.id in (select source_id from cand)
      ),
      postings as materialized (
        -- each list unnested once (not once per candidate)
        select l.qi, l.id, u.ord, u.imp from lists l, unnest(l.ords, l.imps) as u(ord, imp)
      ),
      hits as materialized (
        select po.id, po.ord, sum(wt.w * po.imp) as s
        from postings po join weighted wt on wt.qi = po.qi
        join cand c on c.source_id = po.id and c.ord = po.ord
        group by po.id, po.ord
      )
      select c.source_id, c.ord as ordinal, coalesce(h.s, 0)::float8 as s,
             (select sum(wt.w) from weighted wt where ${analyzerSql(sql`p.metadata`)} = any(wt.cfgs))::float8 as sum_idf
      from cand c
      join scope sc on sc.id = c.source_id
      cross join lateral (
        select p.metadata from knowledge_passages p
        where p.source_id = c.source_id and p.version = sc.v and p.ordinal = c.ord
        limit 1
      ) p
      left join hits h on h.id = c.source_id and h.ord = c.ord
    `.execute(db);
    return rows;
  }

  /** Passages by key (source, version, ordinal), for candidates found by their vectors. */
  async getPassages(db: Db, keys: { sourceId: string; version: number; ordinal: number }[]) {
    if (keys.length === 0) return [];
    const { rows } = await sql<{
      source_id: string; knowledge_base_id: string; ordinal: number; title: string; heading: string | null; url: string | null; content: string;
      metadata: Record<string, string>; own_metadata: Record<string, string>;
    }>`
      select p.source_id, p.knowledge_base_id, p.ordinal, p.title, p.heading, p.url, p.content, p.metadata, p.own_metadata
      from unnest(${keys.map((k) => k.sourceId)}::text[], ${keys.map((k) => k.version)}::int[], ${keys.map((k) => k.ordinal)}::int[]) as k(source_id, v, ord)
      cross join lateral (
        -- one primary-key probe per key, whatever the statistics say
        select * from knowledge_passages p where p.source_id = k.source_id and p.version = k.v and p.ordinal = k.ord limit 1
      ) p
    `.execute(db);
    return rows;
  }

  /** Term frequencies of each text (1-based index `i`), as the index's analyzer sees them. */
  async tokenizeTexts(db: Db, texts: string[]) {
    const cfg = sql.lit(TEXT_SEARCH_CONFIG);
    const { rows } = await sql<{ i: number; term: string; tf: number }>`
      select d.i::int as i, t.lexeme as term, coalesce(array_length(t.positions, 1), 1) as tf
      from unnest(${texts}::text[]) with ordinality as d(txt, i), unnest(to_tsvector(${cfg}::regconfig, d.txt)) t
    `.execute(db);
    return rows;
  }

  /** The query's terms with their frequency in the query and their document frequency over `sources`. */
  async queryTermStats(db: Db, input: { query: string; sources: { id: string; version: number }[] }) {
    const cfg = sql.lit(TEXT_SEARCH_CONFIG);
    const { rows } = await sql<{ term: string; qtf: number; df: number }>`
      with q as (
        select lexeme as term, coalesce(array_length(positions, 1), 1) as qtf from unnest(to_tsvector(${cfg}::regconfig, ${input.query}))
      )
      select q.term, q.qtf,
        coalesce((select sum(k.df) from knowledge_terms k
                  join unnest(${input.sources.map((s) => s.id)}::text[], ${input.sources.map((s) => s.version)}::int[]) as s(id, v)
                    on k.source_id = s.id and k.version = s.v
                  where k.term = q.term), 0)::float8 as df
      from q
    `.execute(db);
    return rows;
  }
}
