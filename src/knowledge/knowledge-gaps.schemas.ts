import { z } from '../domain/api-schema';

const GapExampleSchema = z.object({
  text: z.string().describe("the customer's question as stored (redacted like every stored message)"),
  message_id: z.string(),
  conversation_id: z.string(),
  run_id: z.string(),
  channel: z.string(),
  language: z.string().describe('en, de, fr or es: guessed from the words, else the customer locale'),
  asked_at: z.string(),
});

export const KnowledgeGapSchema = z
  .object({
    id: z.string().describe('gap_ prefix; derived from the group\'s first question (the previous period included), so a group keeps its id from one day to the next while that question is in view'),
    object: z.literal('knowledge_gap'),
    conversations: z.number().int().describe('impact: the conversations with a question of this group in the period (what an answer would have resolved); the list is sorted by it'),
    questions: z.number().int().describe('questions of this group in the period'),
    previous_period_questions: z.number().int().describe('questions of the period just before (same length) that fall in this group'),
    trend: z.enum(['new', 'rising', 'steady', 'falling']).describe('new: none in the previous period; rising: more than 1.25 times as many; falling: fewer than 0.8 times; else steady'),
    examples: z.array(GapExampleSchema).max(3).describe('up to three different questions, those nearest the group\'s centre first'),
    channels: z.record(z.string(), z.number().int()).describe('questions per channel'),
    languages: z.record(z.string(), z.number().int()).describe('questions per language'),
    reasons: z.record(z.string(), z.number().int()).describe('questions per handoff reason: no_supporting_source, low_confidence'),
    near_miss: z
      .object({
        title: z.string(),
        snippet: z.string(),
        score: z.number().describe('calibrated retrieval score of the run that came closest'),
        knowledge_base_id: z.string().nullable(),
        source_id: z.string().nullable(),
        url: z.string().nullable(),
        run_id: z.string(),
      })
      .nullable()
      .describe("the best passage any of the group's runs retrieved (from the runs' stored retrieval), with its score; null when none retrieved any"),
    human_reply: z
      .object({ text: z.string(), conversation_id: z.string() })
      .nullable()
      .describe('the first reply a person wrote after one of these questions (the latest such conversation), if any'),
    first_asked_at: z.string(),
    last_asked_at: z.string(),
  })
  .openapi('KnowledgeGap');
export type KnowledgeGapObject = z.infer<typeof KnowledgeGapSchema>;

export const KnowledgeGapReportSchema = z
  .object({
    object: z.literal('knowledge_gap_report'),
    agent_id: z.string(),
    livemode: z.boolean(),
    from: z.string(),
    to: z.string(),
    previous_from: z.string().describe('start of the previous period the trend compares with (it ends at `from`)'),
    grouping: z.object({
      method: z.enum(['embeddings', 'lexical']).describe('embeddings: by meaning, with the embedding model; lexical: by shared words (EMBEDDINGS=off, or the model did not answer)'),
      model: z.string().nullable(),
      threshold: z.number().describe("cosine with a group's centre at or above which a question joins it"),
      note: z.string().nullable().describe('why the grouping is lexical, or what is left out'),
    }),
    questions: z.number().int().describe("the period's gap questions (runs handed off for no_supporting_source or low_confidence; console tests and evaluations excluded)"),
    conversations: z.number().int(),
    pending_questions: z.number().int().describe('questions left out because the model had not embedded them within this request\'s budget; asking again includes them'),
    total_groups: z.number().int(),
    data: z.array(KnowledgeGapSchema).describe('the groups, most conversations first, at most `limit`'),
  })
  .openapi('KnowledgeGapReport');
export type KnowledgeGapReportObject = z.infer<typeof KnowledgeGapReportSchema>;

export const KnowledgeGapsQuerySchema = z.strictObject({
  agent_id: z.string().min(1).max(100),
  from: z.iso.datetime({ offset: true }).optional().describe('start of the period (inclusive, ISO 8601); default: `to` minus 7 days'),
  to: z.iso.datetime({ offset: true }).optional().describe('end of the period (exclusive); default: now'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('groups returned (1 to 100, default 20)'),
});
