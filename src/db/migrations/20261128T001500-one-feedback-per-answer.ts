import { type Kysely, sql } from 'kysely';

/**
 * Feedback is one vote per conversation and answer (`message_id`, or none for the whole conversation), which
 * a new vote changes: the latest of the rows kept until now stays, the others go (the latest was the one
 * that counted), and a unique index holds it from now on (docs/decisions/feedback-one-vote.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from conversation_feedback f using conversation_feedback g
    where f.conversation_id = g.conversation_id and f.message_id is not distinct from g.message_id
      and (f.created_at, f.id) < (g.created_at, g.id)`.execute(db);
  await sql`create unique index conversation_feedback_one_vote on conversation_feedback (conversation_id, message_id) nulls not distinct`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists conversation_feedback_one_vote`.execute(db);
}
