import type { Kysely } from 'kysely';
import { insertWithinCap } from '../accounts/account-quotas';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import { ConversationRepo } from './conversation.repo';
import { renderSavedReply } from './saved-reply-template';
import { SavedReplyRepo } from './saved-reply.repo';
import { toSavedReplyObject, type SavedReplyObject } from './saved-reply.schemas';

/** How many saved replies an account keeps per mode (the picker lists them all). */
export const MAX_SAVED_REPLIES = 500;

/** Saved replies of an account (per mode): a name and a text with variables, inserted into a reply by a teammate. */
export class SavedRepliesService {
  private readonly repo = new SavedReplyRepo();
  private readonly conversations = new ConversationRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  async createSavedReply(input: Scope & { name: string; content: string }): Promise<SavedReplyObject> {
    const scope = scopeOf(input);
    const row = await insertWithinCap(
      this.deps.db,
      {
        list: 'saved_replies',
        key: `${scope.accountId}:${scope.livemode}`,
        cap: MAX_SAVED_REPLIES,
        count: (trx) => this.repo.count(trx, scope, MAX_SAVED_REPLIES),
        refusal: () => new AppError('parameter_unprocessable', `An account keeps at most ${MAX_SAVED_REPLIES} saved replies per mode`, { param: 'name' }),
      },
      (trx) => this.repo.insert(trx, { id: newId(IdPrefix.savedReply), account_id: input.accountId, livemode: input.livemode, name: input.name, content: input.content, updated_at: new Date() }),
    );
    return toSavedReplyObject(row);
  }

  async listSavedReplies(input: Scope) {
    const rows = await this.repo.list(this.deps.db, scopeOf(input), MAX_SAVED_REPLIES);
    return { object: 'list' as const, data: rows.map(toSavedReplyObject), has_more: false };
  }

  async getSavedReply(input: Scope & { savedReplyId: string }): Promise<SavedReplyObject> {
    const row = await this.repo.get(this.deps.db, scopeOf(input), input.savedReplyId);
    if (!row) throw notFound('saved_reply', input.savedReplyId);
    return toSavedReplyObject(row);
  }

  async updateSavedReply(input: Scope & { savedReplyId: string; name?: string; content?: string }): Promise<SavedReplyObject> {
    const row = await this.repo.update(this.deps.db, scopeOf(input), input.savedReplyId, { name: input.name, content: input.content });
    if (!row) throw notFound('saved_reply', input.savedReplyId);
    return toSavedReplyObject(row);
  }

  async deleteSavedReply(input: Scope & { savedReplyId: string }) {
    if (!(await this.repo.delete(this.deps.db, scopeOf(input), input.savedReplyId))) throw notFound('saved_reply', input.savedReplyId);
    return { id: input.savedReplyId, object: 'saved_reply' as const, deleted: true as const };
  }

  /** The saved reply's text for one conversation, its variables filled in (`agentName`: the teammate inserting it). */
  async renderForConversation(input: Scope & { savedReplyId: string; conversationId: string; agentName: string }): Promise<string> {
    const [reply, conversation] = await Promise.all([
      this.repo.get(this.deps.db, scopeOf(input), input.savedReplyId),
      this.conversations.getConversationById(this.deps.db, scopeOf(input), input.conversationId),
    ]);
    if (!reply) throw notFound('saved_reply', input.savedReplyId);
    if (!conversation) throw notFound('conversation', input.conversationId);
    const customer = conversation.customer as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return renderSavedReply(reply.content, {
      'customer.name': str(customer.name),
      'customer.email': str(customer.email),
      'customer.phone': str(customer.phone),
      'agent.name': input.agentName,
      'conversation.id': conversation.id,
    });
  }
}
