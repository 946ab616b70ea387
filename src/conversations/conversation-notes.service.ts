import type { Kysely } from 'kysely';
import { insertWithinCap } from '../accounts/account-quotas';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import { redactText } from '../privacy/redaction';
import { ConversationRepo } from './conversation.repo';
import { ConversationNoteRepo } from './conversation-note.repo';
import { toConversationNoteObject, type ConversationNoteObject } from './conversation-note.schemas';

/** Notes kept per conversation (the console and the API list them all; a conversation keeps at most this many). */
export const MAX_NOTES_PER_CONVERSATION = 500;

/** Who writes a note: a console user, or a key (an API key, or a console signed in with one: keyId null). */
export type NoteAuthor = { userId: string; name: string } | { keyId: string | null; name: string };

/**
 * Internal notes on a conversation: for the team only. They are not messages: never sent on a channel,
 * never in the transcript (messages, the conversation stream, the planner's context, a visitor's view);
 * the console shows them and `GET /v1/conversations/{id}` lists them for secret keys.
 */
export class ConversationNotesService {
  private readonly conversations = new ConversationRepo();
  private readonly notes = new ConversationNoteRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  async addNote(input: Scope & { conversationId: string; body: string; author: NoteAuthor }): Promise<ConversationNoteObject> {
    const { db } = this.deps;
    const conversation = await this.conversations.getConversationById(db, scopeOf(input), input.conversationId);
    if (!conversation) throw notFound('conversation', input.conversationId);
    // The list shows the first MAX notes: a note past them would be kept but never shown.
    const row = await insertWithinCap(db, {
      list: 'conversation_notes',
      key: conversation.id,
      cap: MAX_NOTES_PER_CONVERSATION,
      count: (trx) => this.notes.count(trx, conversation.id, MAX_NOTES_PER_CONVERSATION),
      refusal: () => new AppError('parameter_unprocessable', `A conversation keeps at most ${MAX_NOTES_PER_CONVERSATION} notes`, { param: 'body' }),
    }, (trx) => this.notes.insert(trx, {
      id: newId(IdPrefix.note),
      account_id: input.accountId,
      livemode: input.livemode,
      conversation_id: conversation.id,
      author_user_id: 'userId' in input.author ? input.author.userId : null,
      author_key_id: 'keyId' in input.author ? input.author.keyId : null,
      author_name: input.author.name,
      // Notes are at rest like transcripts: a card number typed into one is redacted too.
      body: redactText(input.body).text,
    }));
    return toConversationNoteObject(row);
  }

  /** The conversation's notes, oldest first. */
  async listNotes(input: Scope & { conversationId: string }): Promise<ConversationNoteObject[]> {
    const rows = await this.notes.list(this.deps.db, scopeOf(input), input.conversationId, MAX_NOTES_PER_CONVERSATION);
    return rows.map(toConversationNoteObject);
  }
}
