import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema';
import { passageMatches, type PassageFilter } from './lexical-index.repo';

type Db = Kysely<DB> | Transaction<DB>;

/** A passage whose vector (or only its sentence vectors) the backfill must compute. */
export interface PassageToEmbed {
  ordinal: number;
  content_hash: Buffer;
  title: string;
  heading: string | null;
  content: string;
  /** False: the passage vector is stored already and only its sentence vectors are missing. */
  needs_vector: boolean;
}

/** A dense candidate: a live passage with its stored vector. */
export interface DenseHit {
  source_id: string;
  ordinal: number;
  content_hash: Buffer;
  vec: Buffer;
}

/** The unit vector as stored (little-endian float32) and its sign bits (`bit varying`). */
export function encodeVector(v: Float32Array): { vec: Buffer; bits: string } {
  const vec = Buffer.alloc(v.length * 4);
  let bits = '';
  for (let i = 0; i < v.length; i++) {
    vec.writeFloatLE(v[i]!, i * 4);
    bits += v[i]! > 0 ? '1' : '0';
  }
  return { vec, bits };
}

export function decodeVector(buf: Uint8Array): Float32Array {
  const out = new Float32Array(buf.byteLength / 4);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** A passage's sentence vectors as stored (`sentence_vecs`): each vector's little-endian float32, one after another. */
export function encodeVectors(vs: readonly Float32Array[]): Buffer {
  return Buffer.concat(vs.map((v) => encodeVector(v).vec));
}

/** The vectors of `dims` dimensions packed in `buf` (encodeVectors); none for an empty value. */
export function decodeVectors(buf: Uint8Array, dims: number): Float32Array[] {
  const size = dims * 4;
  if (!(size > 0) || buf.byteLength % size !== 0) throw new Error(`sentence vectors of ${buf.byteLength} bytes are not a multiple of ${dims} float32`);
  return Array.from({ length: buf.byteLength / size }, (_, i) => decodeVector(buf.subarray(i * size, (i + 1) * size)));
}

/**
 * The vector side of the index: passage vectors (and their sentence vectors) keyed by (source, model,
 * content hash), the backfill's reads and writes, and the dense lookups of retrieval (vectors and sentence
 * vectors of given passages; nearest passages by a Hamming scan over sign bits, bounded by the scope).
 */
export class VectorIndexRepo {
  async getActiveVersion(db: Db, sourceId: string): Promise<number | null | undefined> {
    const row = await db.selectFrom('knowledge_sources').select('active_version').where('id', '=', sourceId).executeTakeFirst();
    return row?.active_version;
  }

  /**
   * Passages of `version` after `afterOrdinal`, in order, whose content has no vector of `model` yet or,
   * with `sentences`, whose stored vector has no sentence vectors yet (`needs_vector` false).
   */
  async listPassagesToEmbed(
    db: Db, input: { sourceId: string; version: number; model: string; afterOrdinal: number; limit: number; sentences: boolean },
  ): Promise<PassageToEmbed[]> {
    const { rows } = await sql<PassageToEmbed>`
      select p.ordinal, p.content_hash, p.title, p.heading, p.content, e.content_hash is null as needs_vector
      from knowledge_passages p
      left join lateral (
        select e.content_hash, e.sentence_vecs from knowledge_embeddings e
        where e.source_id = p.source_id and e.model = ${input.model} and e.content_hash = p.content_hash
        limit 1
      ) e on true
      where p.source_id = ${input.sourceId} and p.version = ${input.version} and p.ordinal > ${input.afterOrdinal}
        and p.content_hash is not null
        and (e.content_hash is null or (${input.sentences}::boolean and e.sentence_vecs is null))
      order by p.ordinal
      limit ${input.limit}
    `.execute(db);
    return rows;
  }

  /**
   * Sources whose live version has a stored vector of `model` without its sentence vectors (stored before
   * sentence vectors existed, or with EMBEDDINGS_SENTENCES off), with that version: what the boot sweep
   * re-embeds. One statement; each probe uses the embeddings' primary key and the passages' hash index.
   */
  async listSourcesMissingSentenceVectors(db: Db, input: { model: string }): Promise<{ source_id: string; version: number }[]> {
    const { rows } = await sql<{ source_id: string; version: number }>`
      select s.id as source_id, s.active_version as version
      from knowledge_sources s
      where s.active_version is not null
        -- a source whose sync is still embedding it (passage vectors missing) is left to that sync
        and s.embedded_passages >= s.passage_count
        and exists (
          select 1 from knowledge_embeddings e
          join knowledge_passages p on p.source_id = e.source_id and p.content_hash = e.content_hash and p.version = s.active_version
          where e.source_id = s.id and e.model = ${input.model} and e.sentence_vecs is null
        )
      order by s.id
    `.execute(db);
    return rows;
  }

  /**
   * Stores passage vectors (their sentence vectors come after: setSentenceVectors). A vector already stored
   * (a retried batch, a duplicate passage) is kept as it is.
   */
  async insertEmbeddings(db: Db, input: { sourceId: string; model: string; rows: { contentHash: Buffer; vector: Float32Array }[] }) {
    if (input.rows.length === 0) return;
    await db
      .insertInto('knowledge_embeddings')
      .values(
        input.rows.map((r) => {
          const { vec, bits } = encodeVector(r.vector);
          return { source_id: input.sourceId, model: input.model, content_hash: r.contentHash, dims: r.vector.length, bits, vec };
        }),
      )
      .onConflict((oc) => oc.columns(['source_id', 'model', 'content_hash']).doNothing())
      .execute();
  }

  /**
   * Adds the sentence vectors of stored passage vectors that have none yet (vectors from before sentence
   * vectors, or computed with EMBEDDINGS_SENTENCES off); rows that have them, or whose dims differ, are kept.
   */
  async setSentenceVectors(db: Db, input: { sourceId: string; model: string; rows: { contentHash: Buffer; sentences: Float32Array[] }[] }): Promise<number> {
    if (input.rows.length === 0) return 0;
    const res = await sql`
      update knowledge_embeddings e set sentence_vecs = k.sentence_vecs
      from unnest(
        ${input.rows.map((r) => r.contentHash)}::bytea[],
        ${input.rows.map((r) => encodeVectors(r.sentences))}::bytea[],
        ${input.rows.map((r) => r.sentences[0]?.length ?? 0)}::int[]
      ) as k(content_hash, sentence_vecs, dims)
      where e.source_id = ${input.sourceId} and e.model = ${input.model} and e.content_hash = k.content_hash
        and e.sentence_vecs is null and (k.dims = 0 or k.dims = e.dims)
    `.execute(db);
    return Number(res.numAffectedRows ?? 0);
  }

  /** Records how many passages of `version` have a vector of `model` (if `version` is still the live one). */
  async refreshEmbeddedCount(db: Db, input: { sourceId: string; version: number; model: string }): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      update knowledge_sources s set embedded_passages = c.n
      from (
        select count(*)::int as n from knowledge_passages p
        where p.source_id = ${input.sourceId} and p.version = ${input.version}
          and exists (
            select 1 from knowledge_embeddings e
            where e.source_id = p.source_id and e.model = ${input.model} and e.content_hash = p.content_hash
          )
      ) c
      where s.id = ${input.sourceId} and s.active_version = ${input.version}
      returning c.n
    `.execute(db);
    return rows[0]?.n ?? 0;
  }

  /** Deletes the source's vectors that no passage uses any more (content changed, or another model). */
  async pruneEmbeddings(db: Db, input: { sourceId: string; model: string }): Promise<number> {
    const res = await sql`
      delete from knowledge_embeddings e
      where e.source_id = ${input.sourceId}
        and (e.model <> ${input.model}
             or not exists (select 1 from knowledge_passages p where p.source_id = e.source_id and p.content_hash = e.content_hash))
    `.execute(db);
    return Number(res.numAffectedRows ?? 0);
  }

  /** The stored vectors of the given passages' contents (missing when not embedded yet). */
  async getVectors(db: Db, input: { model: string; keys: { sourceId: string; contentHash: Buffer }[] }) {
    if (input.keys.length === 0) return [];
    const { rows } = await sql<{ source_id: string; content_hash: Buffer; vec: Buffer }>`
      select k.source_id, k.content_hash, e.vec
      from unnest(${input.keys.map((k) => k.sourceId)}::text[], ${input.keys.map((k) => k.contentHash)}::bytea[]) as k(source_id, content_hash)
      cross join lateral (
        -- one primary-key probe per key, whatever the table statistics say
        select e.vec from knowledge_embeddings e
        where e.source_id = k.source_id and e.model = ${input.model} and e.content_hash = k.content_hash
        limit 1
      ) e
    `.execute(db);
    return rows;
  }

  /**
   * The stored sentence vectors of the given passages' contents, with their dims (one statement; rows
   * without sentence vectors come back with an empty or null `sentence_vecs`, rows not embedded not at all).
   */
  async getSentenceVectors(db: Db, input: { model: string; keys: { sourceId: string; contentHash: Buffer }[] }) {
    if (input.keys.length === 0) return [];
    const { rows } = await sql<{ source_id: string; content_hash: Buffer; dims: number; sentence_vecs: Buffer | null }>`
      select k.source_id, k.content_hash, e.dims, e.sentence_vecs
      from unnest(${input.keys.map((k) => k.sourceId)}::text[], ${input.keys.map((k) => k.contentHash)}::bytea[]) as k(source_id, content_hash)
      cross join lateral (
        select e.dims, e.sentence_vecs from knowledge_embeddings e
        where e.source_id = k.source_id and e.model = ${input.model} and e.content_hash = k.content_hash
        limit 1
      ) e
    `.execute(db);
    return rows;
  }

  /**
   * Dense candidates by exact scan over the scope's vectors: the `limit` nearest by Hamming distance of
   * sign bits (bit_count of the XOR, plain PostgreSQL), mapped to a live passage each, with their full
   * vectors for exact re-scoring by the caller (the out-of-line `vec` travels through the sort as a TOAST
   * pointer and is read only for the rows kept).
   */
  async scanNearest(
    db: Db,
    input: { model: string; scope: { id: string; version: number }[]; bits: string; limit: number; passageFilter?: PassageFilter },
  ): Promise<DenseHit[]> {
    if (input.scope.length === 0) return [];
    const pf = input.passageFilter;
    const keep = pf
      ? sql`(e.source_id <> all(${pf.sourceIds}::text[]) or exists (
          select 1 from scope sc
          join knowledge_passages p on p.source_id = sc.id and p.version = sc.v and p.content_hash = e.content_hash
          join knowledge_sources ks on ks.id = sc.id
          where sc.id = e.source_id and ${passageMatches(pf.filter)}
        ))`
      : sql`true`;
    const pick = pf ? sql`(p.source_id <> all(${pf.sourceIds}::text[]) or ${passageMatches(pf.filter)})` : sql`true`;
    const { rows } = await sql<DenseHit>`
      with scope as materialized (
        select * from unnest(${input.scope.map((s) => s.id)}::text[], ${input.scope.map((s) => s.version)}::int[]) as s(id, v)
      ),
      near as materialized (
        select e.source_id, e.content_hash, e.vec, bit_count(e.bits # ${input.bits}::varbit) as d
        from knowledge_embeddings e
        where e.source_id in (select id from scope) and e.model = ${input.model} and length(e.bits) = ${input.bits.length}
          and ${keep}
        order by d
        limit ${input.limit}
      )
      select n.source_id, p.ordinal, n.content_hash, n.vec
      from near n
      join scope s on s.id = n.source_id
      cross join lateral (
        select p.ordinal from knowledge_passages p
        join knowledge_sources ks on ks.id = p.source_id
        where p.source_id = n.source_id and p.content_hash = n.content_hash and p.version = s.v and ${pick}
        limit 1
      ) p
    `.execute(db);
    return rows;
  }
}
