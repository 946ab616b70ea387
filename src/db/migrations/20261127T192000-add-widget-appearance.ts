import { type Kysely, sql } from 'kysely';

/**
 * The website widget's appearance and behaviour per agent (theme colour, position, greeting, proactive
 * message, where the visitor token is kept): one JSON object the widget settings service validates and
 * completes with defaults on read, so `{}` is an agent that never changed them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').addColumn('widget_appearance', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('widget_appearance').execute();
}
