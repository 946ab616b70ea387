import { type Kysely, sql } from 'kysely';

/**
 * Knowledge gaps (GET /v1/analytics/knowledge_gaps): the vectors of customer questions the gap report has
 * embedded, keyed by the model and a hash of the question's text (one row per distinct text, whichever
 * conversation asked it), so a report embeds only the questions it has not seen; and a partial index over
 * the runs that ended in a gap (handed off for `no_supporting_source` or `low_confidence`), so the report
 * reads an agent's period without scanning its other runs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('knowledge_question_vectors')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('text_hash', 'bytea', (c) => c.notNull())
    .addColumn('vec', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('knowledge_question_vectors_pk', ['model', 'text_hash'])
    .execute();
  await sql`create index runs_knowledge_gaps on runs (agent_id, created_at)
    where (handoff->>'reason') in ('no_supporting_source', 'low_confidence')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists runs_knowledge_gaps`.execute(db);
  await db.schema.dropTable('knowledge_question_vectors').execute();
}
