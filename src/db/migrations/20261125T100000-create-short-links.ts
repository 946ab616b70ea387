import { type Kysely, sql } from 'kysely';

/** Short links (`/l/{code}`) for citations in SMS replies, with a click count. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('short_links')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('run_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_clicked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('short_links_run').on('short_links').columns(['run_id']).where(sql.ref('run_id'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('short_links').execute();
}
