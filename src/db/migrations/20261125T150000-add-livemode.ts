import { type Kysely, sql } from 'kysely';

/**
 * Test and live mode (Stripe's model): every object the API shows belongs to one mode, the mode of the
 * key that created it (or, for objects the service creates, of the object that caused them). Children
 * without the column follow their parent (agent versions, run steps and events, sources' passages, a
 * delivery's attempts). Rows that existed before default to test mode.
 */
export const LIVEMODE_TABLES = [
  'agents',
  'conversations',
  'conversation_messages',
  'runs',
  'messages',
  'verifications',
  'phone_numbers',
  'senders',
  'webhook_endpoints',
  'events',
  'webhook_deliveries',
  'knowledge_bases',
  'knowledge_files',
  'calls',
  'email_addresses',
  'email_messages',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of LIVEMODE_TABLES) {
    await db.schema.alterTable(table).addColumn('livemode', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  }
  // Lists are scoped by account and mode, newest first.
  for (const table of LIVEMODE_TABLES) {
    await sql`create index ${sql.id(`${table}_account_livemode_created`)} on ${sql.table(table)} (account_id, livemode, created_at, id)`.execute(db);
  }
  // Consent (STOP/START) is kept per mode: a STOP sent in the sandbox never silences live messages.
  await db.schema.alterTable('sms_consents').addColumn('livemode', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db.schema.alterTable('sms_consents').dropConstraint('sms_consents_pk').execute();
  await db.schema.alterTable('sms_consents').addPrimaryKeyConstraint('sms_consents_pk', ['account_id', 'livemode', 'recipient', 'sender']).execute();
  // An agent's name is unique within its account and mode (a test agent and a live one may share it).
  await db.schema.dropIndex('agents_account_name').execute();
  await db.schema.createIndex('agents_account_name').on('agents').columns(['account_id', 'livemode', 'name']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from sms_consents where livemode`.execute(db);
  await db.schema.alterTable('sms_consents').dropConstraint('sms_consents_pk').execute();
  await db.schema.alterTable('sms_consents').addPrimaryKeyConstraint('sms_consents_pk', ['account_id', 'recipient', 'sender']).execute();
  await db.schema.alterTable('sms_consents').dropColumn('livemode').execute();
  await db.schema.dropIndex('agents_account_name').execute();
  await db.schema.createIndex('agents_account_name').on('agents').columns(['account_id', 'name']).unique().execute();
  for (const table of LIVEMODE_TABLES) {
    await sql`drop index if exists ${sql.id(`${table}_account_livemode_created`)}`.execute(db);
    await db.schema.alterTable(table).dropColumn('livemode').execute();
  }
}
