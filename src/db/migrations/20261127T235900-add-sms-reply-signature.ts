import { type Kysely, sql } from 'kysely';

/**
 * Whether a teammate's SMS reply ends with their name ("— Dana"): off unless the account turns it on
 * (docs/decisions/inbox-signed-human-replies.md); a signature costs characters, and so segments.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts add column sign_sms_replies boolean not null default false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop column if exists sign_sms_replies`.execute(db);
}
