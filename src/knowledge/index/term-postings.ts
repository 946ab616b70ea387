import { sql } from 'kysely';
import { analyzerSql } from './analyzers';

/** The text a passage is indexed from (title, heading and content). */
export const passageIndexedText = sql`p.title || ' ' || coalesce(p.heading, '') || ' ' || p.content`;

export interface PassageImpactsInput {
  sourceId: string;
  version: number;
  /** Only the passages from this ordinal on (a record's, just inserted); all of the version's when absent. */
  firstOrdinal?: number;
  /**
   * The rest of the version, when only some passages are indexed: the average length is then taken over
   * these and the indexed ones together; over the indexed ones alone when absent.
   */
  others?: { passages: number; length: number };
  bm25: { k1: number; b: number };
}

/**
 * The opening `with` of a term-index write: writes each indexed passage's length and ends in the CTE
 * `post(lexeme, ordinal, imp)`, each term of each passage with its BM25 impact
 * tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)). The caller follows it with its insert into knowledge_terms,
 * so a full build and a one-record change index text and weigh terms by one definition.
 */
export function passageImpactsSql(input: PassageImpactsInput) {
  const { sourceId, version, firstOrdinal, others } = input;
  const cfg = analyzerSql(sql`p.metadata`);
  const k1 = sql.raw(`${Number(input.bm25.k1)}::float8`);
  const b = sql.raw(`${Number(input.bm25.b)}::float8`);
  const fromOrdinal = firstOrdinal === undefined ? sql`` : sql`and p.ordinal >= ${firstOrdinal}`;
  const avg = others
    ? sql`select greatest((${others.length}::float8 + coalesce(sum(len), 0)) / greatest(${others.passages}::int + count(*), 1), 1)::float8 as a from lens`
    : sql`select greatest(avg(len), 1)::float8 as a from lens`;
  return sql`
      with tok as (
        select p.ordinal, t.lexeme, coalesce(array_length(t.positions, 1), 1)::float8 as tf
        from knowledge_passages p, unnest(to_tsvector(${cfg}::regconfig, ${passageIndexedText})) t
        where p.source_id = ${sourceId} and p.version = ${version} ${fromOrdinal}
      ),
      lens as (select ordinal, sum(tf)::int as len from tok group by ordinal),
      avg as (${avg}),
      upd as (
        update knowledge_passages p set length = lens.len from lens
        where p.source_id = ${sourceId} and p.version = ${version} and p.ordinal = lens.ordinal
      ),
      post as (
        select tok.lexeme, tok.ordinal, (tok.tf * (${k1} + 1) / (tok.tf + ${k1} * (1 - ${b} + ${b} * lens.len / avg.a)))::real as imp
        from tok join lens using (ordinal) cross join avg
      )`;
}
