import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { IdPrefix, newId } from '../domain/ids';
import { AppError, notFound, referenceMissing } from '../domain/errors';
import { canVisitorRead } from '../domain/visitor-access';
import type { Scope, VisitorPrincipal } from '../domain/principal';
import { scopeOf } from '../domain/principal';
import { FeedbackRepo } from './feedback.repo';

export interface FeedbackObject {
  id: string;
  object: 'conversation_feedback';
  conversation_id: string;
  message_id: string | null;
  rating: 'up' | 'down';
  created_at: string;
}

/**
 * The customer's rating of a conversation (thumbs up: the answer helped), through a secret key or the website
 * visitor's publishable key on their own conversation. One vote per conversation (and per agent answer with
 * `message_id`): a new rating changes it, so a flood of ratings keeps one row; the latest counts for analytics
 * ("confirmed" resolution, src/analytics/conversation-facts.ts).
 */
export class FeedbackService {
  private readonly repo = new FeedbackRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  async rate(input: { conversationId: string; rating: 'up' | 'down'; messageId?: string } & ({ scope: Scope; visitor?: undefined } | { visitor: VisitorPrincipal; scope?: undefined })): Promise<FeedbackObject> {
    const c = await this.repo.conversation(this.deps.db, input.conversationId);
    const readable = c && (input.visitor
      ? canVisitorRead(input.visitor, c)
      : c.account_id === input.scope.accountId && c.livemode === input.scope.livemode && !c.test);
    if (!c || !readable) throw notFound('conversation', input.conversationId);
    if (input.messageId) {
      const m = await this.repo.messageOf(this.deps.db, c.id, input.messageId);
      if (!m) throw referenceMissing('message', input.messageId, 'message_id');
      if (m.role !== 'agent') throw new AppError('parameter_unprocessable', "Invalid message_id: it must name one of the agent's answers in this conversation", { param: 'message_id' });
    }
    const scope = input.visitor ? scopeOf(input.visitor) : input.scope;
    const row = await this.repo.upsert(this.deps.db, {
      id: newId(IdPrefix.feedback), account_id: scope.accountId, livemode: scope.livemode, conversation_id: c.id, message_id: input.messageId ?? null, rating: input.rating,
    });
    return { id: row.id, object: 'conversation_feedback', conversation_id: row.conversation_id, message_id: row.message_id, rating: row.rating, created_at: row.created_at.toISOString() };
  }
}
