import { type Kysely, sql } from 'kysely';

/**
 * Conversations across channels: each transcript message records the channel it came or went on, and
 * customers are found again by phone, email or their own id (a thread moving between channels).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('conversation_messages').addColumn('channel', 'text', (c) => c.notNull().defaultTo('chat')).execute();
  await sql`update conversation_messages m set channel = c.channel from conversations c where c.id = m.conversation_id`.execute(db);
  await sql`create index conversations_customer_phone on conversations (account_id, agent_id, (customer->>'phone'), created_at desc) where customer ? 'phone'`.execute(db);
  await sql`create index conversations_customer_email on conversations (account_id, agent_id, lower(customer->>'email'), created_at desc) where customer ? 'email'`.execute(db);
  await sql`create index conversations_customer_id on conversations (account_id, agent_id, (customer->>'id'), created_at desc) where customer ? 'id'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists conversations_customer_phone`.execute(db);
  await sql`drop index if exists conversations_customer_email`.execute(db);
  await sql`drop index if exists conversations_customer_id`.execute(db);
  await db.schema.alterTable('conversation_messages').dropColumn('channel').execute();
}
