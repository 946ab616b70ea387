import { type Kysely, sql } from 'kysely';

/**
 * Email domains an account proves it owns (a DNS TXT record with a token of its own), each with a DKIM key
 * the service signs its live mail with once the key's record is published. Ownership is per account and
 * mode: two accounts that both prove a domain both hold it, and a test-mode domain claims nothing.
 *
 * Addresses change with it: a live address is unique among live addresses (mail to it has one owner), a
 * test-mode address only within its account (test keys claim nothing, so they lock nobody out).
 *
 * Each email we send gets its own return path (VERP, `bounces+<token>@…`): bounces are accepted only there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'timestamptz')
    .addColumn('dkim_selector', 'text', (c) => c.notNull())
    .addColumn('dkim_public_key', 'text', (c) => c.notNull())
    .addColumn('dkim_private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('dkim_verified_at', 'timestamptz')
    .addColumn('last_checked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index email_domains_account_domain on email_domains (account_id, livemode, domain)`.execute(db);
  await sql`create index email_domains_domain on email_domains (domain) where verified_at is not null`.execute(db);

  await db.schema.alterTable('email_messages').addColumn('return_path', 'text').execute();
  await sql`create unique index email_messages_return_path on email_messages (return_path) where return_path is not null`.execute(db);

  await sql`drop index if exists email_addresses_address_unique`.execute(db);
  await sql`create unique index email_addresses_live_address on email_addresses (lower(address)) where livemode`.execute(db);
  await sql`create unique index email_addresses_test_address on email_addresses (account_id, lower(address)) where not livemode`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists email_addresses_test_address`.execute(db);
  await sql`drop index if exists email_addresses_live_address`.execute(db);
  await sql`create unique index email_addresses_address_unique on email_addresses (lower(address))`.execute(db);
  await db.schema.alterTable('email_messages').dropColumn('return_path').execute();
  await db.schema.dropTable('email_domains').execute();
}
