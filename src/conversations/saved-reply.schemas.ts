import { UNPROCESSABLE, z } from '../domain/api-schema';
import { SAVED_REPLY_VARIABLES, unknownVariables } from './saved-reply-template';

export interface SavedReplyRow {
  id: string;
  livemode: boolean;
  name: string;
  content: string;
  created_at: Date;
  updated_at: Date;
}

const ContentSchema = z
  .string()
  .min(1)
  .max(5000)
  .refine((s) => unknownVariables(s).length === 0, UNPROCESSABLE(`only the variables ${SAVED_REPLY_VARIABLES.map((v) => `{{${v}}}`).join(', ')} (with an optional fallback: {{customer.name|there}})`))
  .describe(`the reply's text; variables ${SAVED_REPLY_VARIABLES.map((v) => `{{${v}}}`).join(', ')}, each with an optional fallback after a bar ({{customer.name|there}})`);

export const CreateSavedReplyBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(120).describe('how teammates find it in the picker'),
  content: ContentSchema,
});
export const UpdateSavedReplyBodySchema = CreateSavedReplyBodySchema.partial();

export const SavedReplySchema = z
  .object({
    id: z.string().describe('srep_ prefix'),
    object: z.literal('saved_reply'),
    livemode: z.boolean(),
    name: z.string(),
    content: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('SavedReply');
export type SavedReplyObject = z.infer<typeof SavedReplySchema>;

export const toSavedReplyObject = (r: SavedReplyRow): SavedReplyObject => ({
  id: r.id,
  object: 'saved_reply',
  livemode: r.livemode,
  name: r.name,
  content: r.content,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});
