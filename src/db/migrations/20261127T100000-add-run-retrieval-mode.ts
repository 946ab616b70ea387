import { type Kysely, sql } from 'kysely';

/**
 * How a run's knowledge was retrieved: `hybrid`, `lexical` (embeddings off, or the scope has no vectors
 * yet) or `lexical_fallback` (embeddings on, but the question could not be embedded in time). Null for runs
 * from before this column and runs without knowledge bases.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs add column retrieval_mode text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs drop column if exists retrieval_mode`.execute(db);
}
