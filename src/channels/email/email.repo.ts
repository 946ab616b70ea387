import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../../db/schema';
import type { EmailAddressTable, EmailMessageTable, EmailStatus } from '../../db/tables/email';
import { inScope, type Scope } from '../../db/scope';
import { paginate, type PageParams } from '../../db/pagination';

type Db = Kysely<DB> | Transaction<DB>;
export type EmailAddressRow = Selectable<EmailAddressTable>;
export type EmailMessageRow = Selectable<EmailMessageTable>;

/** The email channel's tables: inbound addresses and the emails of conversations. */
export class EmailRepo {
  async insertAddress(db: Db, row: Insertable<EmailAddressTable>) {
    // Unique case-insensitively: among live addresses, and within the account in test mode (partial indexes).
    return db.insertInto('email_addresses').values(row).onConflict((oc) => oc.doNothing()).returningAll().executeTakeFirst();
  }

  async getAddressById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('email_addresses').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  /** The registered address among `addresses` (most specific first), whoever owns it (or only the scope's). */
  async findAddress(db: Db, addresses: string[], scope?: Scope) {
    if (addresses.length === 0) return undefined;
    const lower = addresses.map((a) => a.toLowerCase());
    let q = db.selectFrom('email_addresses').selectAll().where(sql<boolean>`lower(address) in (${sql.join(lower)})`);
    if (scope) q = q.where(inScope(scope));
    const rows = await q.execute();
    return lower.map((a) => rows.find((r) => r.address.toLowerCase() === a)).find((r) => r !== undefined);
  }

  /** The live address among `addresses` (most specific first): what a mail relay delivers to (test-mode addresses are reached through the test helper only). */
  async findLiveAddress(db: Db, addresses: string[]) {
    if (addresses.length === 0) return undefined;
    const lower = addresses.map((a) => a.toLowerCase());
    const rows = await db.selectFrom('email_addresses').selectAll().where('livemode', '=', true).where(sql<boolean>`lower(address) in (${sql.join(lower)})`).execute();
    return lower.map((a) => rows.find((r) => r.address.toLowerCase() === a)).find((r) => r !== undefined);
  }

  /** The account's address the agent answers on (the oldest, when several). */
  async findAddressOfAgent(db: Db, scope: Scope, agentId: string) {
    return db.selectFrom('email_addresses').selectAll().where(inScope(scope)).where('agent_id', '=', agentId).orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  }

  async listAddresses(db: Db, scope: Scope) {
    return db.selectFrom('email_addresses').selectAll().where(inScope(scope)).orderBy('created_at').orderBy('id').execute();
  }

  async listAddressPage(db: Kysely<DB>, scope: Scope, page: PageParams) {
    return paginate(db, 'email_addresses', db.selectFrom('email_addresses').selectAll().where(inScope(scope)), page);
  }

  async updateAddress(db: Db, scope: Scope, id: string, set: { agent_id?: string | null; display_name?: string | null }) {
    return db.updateTable('email_addresses').set(set).where(inScope(scope)).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async deleteAddress(db: Db, scope: Scope, id: string) {
    return db.deleteFrom('email_addresses').where(inScope(scope)).where('id', '=', id).returning('id').executeTakeFirst();
  }

  /** Inserts unless the same Message-ID (account) or transcript message already has its row; returns the row either way. */
  async insertEmail(db: Db, row: Insertable<EmailMessageTable>): Promise<{ row: EmailMessageRow; inserted: boolean }> {
    const inserted = await db.insertInto('email_messages').values(row).onConflict((oc) => oc.doNothing()).returningAll().executeTakeFirst();
    if (inserted) return { row: inserted, inserted: true };
    const existing = row.conversation_message_id
      ? await db.selectFrom('email_messages').selectAll().where('conversation_message_id', '=', row.conversation_message_id).executeTakeFirst()
      : await db.selectFrom('email_messages').selectAll().where('account_id', '=', row.account_id).where('message_id', '=', row.message_id).executeTakeFirst();
    return { row: existing!, inserted: false };
  }

  async getEmail(db: Db, id: string) {
    return db.selectFrom('email_messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getEmailById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('email_messages').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  /** The scope's emails, newest first; optionally of one conversation, one direction. */
  async listEmailPage(db: Kysely<DB>, scope: Scope, page: PageParams, filter: { conversationId?: string; direction?: 'inbound' | 'outbound' } = {}) {
    let q = db.selectFrom('email_messages').selectAll().where(inScope(scope));
    if (filter.conversationId) q = q.where('conversation_id', '=', filter.conversationId);
    if (filter.direction) q = q.where('direction', '=', filter.direction);
    return paginate(db, 'email_messages', q, page);
  }

  /** An outbound email by its return path (where its bounces are accepted). */
  async findByReturnPath(db: Db, returnPaths: string[]) {
    if (returnPaths.length === 0) return undefined;
    return db.selectFrom('email_messages').selectAll().where('direction', '=', 'outbound').where('return_path', 'in', returnPaths).limit(1).executeTakeFirst();
  }

  async getEmailOfMessage(db: Db, conversationMessageId: string) {
    return db.selectFrom('email_messages').selectAll().where('conversation_message_id', '=', conversationMessageId).executeTakeFirst();
  }

  /** The account's email (either direction) with one of these Message-IDs, latest first. */
  async findByMessageIds(db: Db, scope: Scope, messageIds: string[]) {
    if (messageIds.length === 0) return undefined;
    return db
      .selectFrom('email_messages')
      .selectAll()
      .where(inScope(scope))
      .where('message_id', 'in', messageIds)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** An email we sent, by its Message-ID (named by a bounce or a feedback report). */
  async findOutboundByMessageId(db: Db, messageId: string) {
    return db.selectFrom('email_messages').selectAll().where('direction', '=', 'outbound').where('message_id', '=', messageId).executeTakeFirst();
  }

  /** The latest email with this customer on this thread subject, in a conversation of the agent (null: the team's) that is still open. */
  async findThreadBySubject(db: Db, input: { scope: Scope; agentId: string | null; customerAddress: string; threadSubject: string }) {
    return db
      .selectFrom('email_messages as e')
      .innerJoin('conversations as c', 'c.id', 'e.conversation_id')
      .selectAll('e')
      .where(inScope(input.scope, 'e'))
      .where(sql<boolean>`lower(e.customer_address) = ${input.customerAddress.toLowerCase()}`)
      .where('e.thread_subject', '=', input.threadSubject)
      .where((eb) => (input.agentId === null ? eb('c.agent_id', 'is', null) : eb('c.agent_id', '=', input.agentId)))
      .where('c.status', '!=', 'closed')
      .orderBy('e.created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The conversation's emails, oldest first. */
  async listEmailsOfConversation(db: Db, conversationId: string) {
    return db.selectFrom('email_messages').selectAll().where('conversation_id', '=', conversationId).orderBy('created_at').orderBy('id').execute();
  }

  /** Moves an outbound email out of `sending`; undefined when it already left it. */
  async settleEmail(db: Db, id: string, status: Extract<EmailStatus, 'delivered' | 'bounced' | 'failed'>, error: { code: string; message: string } | null) {
    return db
      .updateTable('email_messages')
      .set({ status, error: error ? JSON.stringify(error) : null, delivered_at: status === 'delivered' ? new Date() : null, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'sending')
      .returningAll()
      .executeTakeFirst();
  }

  /** A bounce reported after the SMTP server accepted the email (a DSN): delivered → bounced. */
  async markBounced(db: Db, id: string, error: { code: string; message: string }) {
    return db
      .updateTable('email_messages')
      .set({ status: 'bounced', error: JSON.stringify(error), updated_at: new Date() })
      .where('id', '=', id)
      .where('status', 'in', ['sending', 'delivered'])
      .returningAll()
      .executeTakeFirst();
  }

  /** Sets opened_at / clicked_at / complained_at the first time; returns the row as it is now. */
  async markEngagement(db: Db, id: string, column: 'opened_at' | 'clicked_at' | 'complained_at') {
    await db.updateTable('email_messages').set({ [column]: new Date(), updated_at: new Date() }).where('id', '=', id).where(column, 'is', null).execute();
    return this.getEmail(db, id);
  }
}
