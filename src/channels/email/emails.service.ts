import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema';
import type { PageParams } from '../../db/pagination';
import type { ListObject } from '../../domain/api-schema';
import { notFound } from '../../domain/errors';
import { scopeOf, type Scope } from '../../domain/principal';
import type { EmailReplyChannel } from './email-reply-channel';
import { EmailRepo } from './email.repo';
import { toEmailObject, type EmailObject, type EmailWithContent } from './email.schemas';

/**
 * The account's emails as API objects (`/v1/emails`): every email of its conversations, both directions.
 * In test mode this is the sandbox's outbox: what the agent and the support team sent, as the relay would
 * have received it (`content`), though nothing left the service.
 */
export class EmailsService {
  private readonly repo = new EmailRepo();

  constructor(private readonly deps: { db: Kysely<DB>; replies: EmailReplyChannel }) {}

  async listEmailPage(input: Scope & { page: PageParams; conversationId?: string; direction?: 'inbound' | 'outbound' }): Promise<ListObject<EmailObject>> {
    const page = await this.repo.listEmailPage(this.deps.db, scopeOf(input), input.page, { conversationId: input.conversationId, direction: input.direction });
    return { object: 'list', data: page.data.map(toEmailObject), has_more: page.has_more };
  }

  /** One email with its content (outbound: rendered from the transcript as it was sent). */
  async getEmail(input: Scope & { emailId: string }): Promise<EmailWithContent> {
    const row = await this.repo.getEmailById(this.deps.db, scopeOf(input), input.emailId);
    if (!row) throw notFound('email', input.emailId);
    return { ...toEmailObject(row), content: (await this.deps.replies.renderSentEmail(row)) ?? null };
  }

  /** The emails carrying these transcript messages, by message id (the console marks what was not sent). */
  async emailsOfConversation(input: Scope & { conversationId: string }): Promise<Map<string, EmailObject>> {
    const page = await this.repo.listEmailPage(this.deps.db, scopeOf(input), { limit: 100 }, { conversationId: input.conversationId, direction: 'outbound' });
    return new Map(page.data.filter((e) => e.conversation_message_id).map((e) => [e.conversation_message_id!, toEmailObject(e)]));
  }
}
