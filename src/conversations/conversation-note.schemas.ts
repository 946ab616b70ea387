import { z } from '../domain/api-schema';
import type { Selectable } from 'kysely';
import type { ConversationNoteTable } from '../db/tables/inbox';

export type ConversationNoteRow = Selectable<ConversationNoteTable>;

export const CreateNoteBodySchema = z.strictObject({ body: z.string().trim().min(1).max(5000).describe('the note: for the team only, never sent to the customer') });

export const ConversationNoteSchema = z
  .object({
    id: z.string().describe('note_ prefix'),
    object: z.literal('conversation.note'),
    livemode: z.boolean(),
    conversation_id: z.string(),
    author: z.object({
      type: z.enum(['console_user', 'api_key']).describe('console_user: a teammate signed in as themself; api_key: a key (or a console signed in with one)'),
      id: z.string().nullable().describe('the console user (cu_…) or the key (key_…); null for a console signed in with a key'),
      name: z.string(),
    }),
    body: z.string(),
    created_at: z.string(),
  })
  .openapi('ConversationNote');
export type ConversationNoteObject = z.infer<typeof ConversationNoteSchema>;

export const toConversationNoteObject = (n: ConversationNoteRow): ConversationNoteObject => ({
  id: n.id,
  object: 'conversation.note',
  livemode: n.livemode,
  conversation_id: n.conversation_id,
  author: n.author_user_id ? { type: 'console_user', id: n.author_user_id, name: n.author_name } : { type: 'api_key', id: n.author_key_id, name: n.author_name },
  body: n.body,
  created_at: n.created_at.toISOString(),
});
