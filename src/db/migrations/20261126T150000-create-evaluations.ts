import { type Kysely, sql } from 'kysely';

/**
 * Evaluations (issue 20): an agent's test cases (scripted customer turns, expectations, declared tool
 * results), evaluations (one run of some cases against a version or a draft snapshot) and one result row
 * per case. A conversation may be pinned to an agent version (`pinned_agent_version`): an evaluation's
 * hidden test conversations run the version under test, not the live one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_test_cases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('agent_test_cases_agent_name').on('agent_test_cases').columns(['agent_id', 'name']).unique().execute();

  await db.schema
    .createTable('evaluations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('agent_version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('case_ids', 'jsonb', (c) => c.notNull())
    .addColumn('comparison', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('evaluations_agent_created').on('evaluations').columns(['agent_id', 'created_at']).execute();

  await db.schema
    .createTable('evaluation_case_results')
    .addColumn('evaluation_id', 'text', (c) => c.notNull().references('evaluations.id').onDelete('cascade'))
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addColumn('case_name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('passed', 'boolean', (c) => c.notNull())
    .addColumn('failures', 'jsonb', (c) => c.notNull())
    .addColumn('run_ids', 'jsonb', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('confidence', 'real')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('evaluation_case_results_pk', ['evaluation_id', 'case_id'])
    .execute();

  await db.schema.alterTable('conversations').addColumn('pinned_agent_version', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('conversations').dropColumn('pinned_agent_version').execute();
  await db.schema.dropTable('evaluation_case_results').ifExists().execute();
  await db.schema.dropTable('evaluations').ifExists().execute();
  await db.schema.dropTable('agent_test_cases').ifExists().execute();
}
