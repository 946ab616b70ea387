import { type Kysely, sql } from 'kysely';

/**
 * The boot sweep (KnowledgeEmbeddingService.sweepMissingSentenceVectors) looks for stored vectors without
 * sentence vectors; a partial index on just those rows keeps that one statement cheap when every row has
 * them (the usual case), instead of reading every embedding row of every source at each boot.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index knowledge_embeddings_missing_sentences on knowledge_embeddings (source_id, model) where sentence_vecs is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists knowledge_embeddings_missing_sentences`.execute(db);
}
