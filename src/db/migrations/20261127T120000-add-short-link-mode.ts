import { type Kysely, sql } from 'kysely';

/**
 * Short links carry the mode of the run that made them: a test-mode link never redirects on its own (it
 * shows its destination first). Links made before this migration are taken as test mode (the safe side:
 * an interstitial, never a silent redirect).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('short_links').addColumn('livemode', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await sql`alter table short_links alter column livemode drop default`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('short_links').dropColumn('livemode').execute();
}
