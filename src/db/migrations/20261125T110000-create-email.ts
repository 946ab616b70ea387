import { type Kysely, sql } from 'kysely';

/**
 * The email channel: the account's inbound addresses (each may have a live agent attached, like phone
 * numbers) and every email sent or received on a conversation, with the headers that thread it
 * (Message-ID, In-Reply-To, References, subject) and its delivery and engagement state. Bodies are not
 * kept here: the transcript (conversation_messages) holds the text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_addresses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('agent_id', 'text', (c) => c.references('agents.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index email_addresses_address_unique on email_addresses (lower(address))`.execute(db);
  await db.schema.createIndex('email_addresses_account_created').on('email_addresses').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('email_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('conversation_message_id', 'text')
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('in_reply_to', 'text')
    .addColumn('references', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('thread_subject', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('customer_address', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'jsonb')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('opened_at', 'timestamptz')
    .addColumn('clicked_at', 'timestamptz')
    .addColumn('complained_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // One email per transcript message (a retried send finds its row); a Message-ID once per account.
  await sql`create unique index email_messages_conversation_message on email_messages (conversation_message_id) where conversation_message_id is not null`.execute(db);
  await sql`create unique index email_messages_message_id on email_messages (account_id, message_id)`.execute(db);
  // Outbound Message-IDs are ours (DSNs and feedback reports name them, whatever account they reach).
  await sql`create index email_messages_outbound_message_id on email_messages (message_id) where direction = 'outbound'`.execute(db);
  await db.schema.createIndex('email_messages_conversation').on('email_messages').columns(['conversation_id', 'created_at']).execute();
  await sql`create index email_messages_thread_subject on email_messages (account_id, lower(customer_address), thread_subject, created_at desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_messages').execute();
  await db.schema.dropTable('email_addresses').execute();
}
