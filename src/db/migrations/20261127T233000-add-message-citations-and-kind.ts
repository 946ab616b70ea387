import { type Kysely, sql } from 'kysely';

/**
 * What a conversation message carries beyond its text:
 * - `citations`: an agent answer's cited sources (`[{title, url}]`, in the order cited), stored with the
 *   answer so a transcript read later (the API's message list, a reloaded widget) shows them as the live
 *   stream did; `[]` for every other message and for answers written before;
 * - `kind`: what a `system` message is: `proactive` (the widget's proactive message, stored when the
 *   visitor answered it); null otherwise (a handoff notice, any other message).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('conversation_messages')
    .addColumn('citations', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('kind', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('conversation_messages').dropColumn('citations').dropColumn('kind').execute();
}
