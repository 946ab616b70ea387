import type { Kysely } from 'kysely';

/**
 * A message whose text must not rest in clear (a verification code) stores a masked `body` and the real
 * text encrypted in `body_sealed`, cleared once the carrier has it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('body_sealed', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('body_sealed').execute();
}
