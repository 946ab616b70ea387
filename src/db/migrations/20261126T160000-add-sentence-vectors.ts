import { type Kysely, sql } from 'kysely';

/**
 * Sentence vectors (docs/decisions/knowledge-calibrated-score.md, knowledge-sentence-vectors.md): beside a passage's
 * vector, the vectors of its sentences (sentenceEmbeddingTexts), packed one after another as little-endian
 * float32 of `dims` each. An empty value means the passage has one sentence (its passage vector stands for
 * it); NULL means not computed yet, so every row stored before this migration is filled by its source's next
 * backfill. Stored out of line and uncompressed like `vec` (float32 bytes do not compress), so the scan over
 * `bits` still reads a narrow heap.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('knowledge_embeddings').addColumn('sentence_vecs', 'bytea').execute();
  await sql`alter table knowledge_embeddings alter column sentence_vecs set storage external`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('knowledge_embeddings').dropColumn('sentence_vecs').execute();
}
