import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { Scope } from '../domain/principal';

/** The run reasons that make a customer question a knowledge gap. */
export const GAP_REASONS = ['no_supporting_source', 'low_confidence'] as const;
export type GapReason = (typeof GAP_REASONS)[number];

/** One customer question that ended in a gap: its run, message, conversation, best passage and the human's reply. */
export interface GapQuestionRow {
  run_id: string;
  conversation_id: string;
  message_id: string;
  created_at: Date;
  channel: string;
  reason: GapReason;
  content: string;
  /** The conversation's customer locale, when one was given. */
  locale: string | null;
  /** The run's best retrieved passage (its stored retrieval's first item), if any. */
  best: { title?: string; snippet?: string; score?: number; source_id?: string; source?: string; url?: string | null } | null;
  /** The first message a person (role `human`) wrote in the conversation after this question. */
  human_reply: string | null;
}

const CHUNK = 1000;

/**
 * What the knowledge-gap report reads (read-only): the runs that handed off for a gap reason, with their
 * customer message and conversation, and the cache of question vectors it writes. Knowledge sits below
 * runs and conversations in the house, so their rows are read here by SQL, never through their services.
 */
export class KnowledgeGapsRepo {
  /** Whether the agent exists in this account and mode. */
  async agentExists(db: Kysely<DB>, scope: Scope, agentId: string): Promise<boolean> {
    const row = await db.selectFrom('agents').select('id').where('id', '=', agentId).where('account_id', '=', scope.accountId).where('livemode', '=', scope.livemode).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The agent's gap questions asked in [from, to), oldest first (then by run id): runs handed off for
   * `no_supporting_source` or `low_confidence`, outside test conversations (console test chats and
   * evaluations), in the scope's mode.
   */
  async listGapQuestions(db: Kysely<DB>, input: Scope & { agentId: string; from: Date; to: Date }): Promise<GapQuestionRow[]> {
    const rows = await sql<GapQuestionRow>`
      select r.id as run_id, r.conversation_id, r.message_id, r.created_at, r.channel,
             r.handoff->>'reason' as reason, m.content, c.customer->>'locale' as locale,
             case when jsonb_typeof(r.retrieval) = 'array' then r.retrieval->0 end as best,
             h.content as human_reply
        from runs r
        join conversation_messages m on m.id = r.message_id
        join conversations c on c.id = r.conversation_id
        left join lateral (
          select hm.content from conversation_messages hm
           where hm.conversation_id = r.conversation_id and hm.role = 'human' and hm.seq > m.seq
           order by hm.seq limit 1
        ) h on true
       where r.agent_id = ${input.agentId} and r.account_id = ${input.accountId} and r.livemode = ${input.livemode}
         and r.created_at >= ${input.from} and r.created_at < ${input.to}
         and (r.handoff->>'reason') in ('no_supporting_source', 'low_confidence')
         and c.test = false
       order by r.created_at, r.id`.execute(db);
    return rows.rows;
  }

  /** Cached vectors of question texts (by sha256 of the text) for a model. */
  async getQuestionVectors(db: Kysely<DB>, model: string, hashes: Buffer[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (let i = 0; i < hashes.length; i += CHUNK) {
      const rows = await db
        .selectFrom('knowledge_question_vectors')
        .select(['text_hash', 'vec'])
        .where('model', '=', model)
        .where('text_hash', 'in', hashes.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) out.set(r.text_hash.toString('hex'), r.vec);
    }
    return out;
  }

  /** Stores question vectors; a text already stored (another report got there first) is left as it is. */
  async insertQuestionVectors(db: Kysely<DB>, model: string, rows: { hash: Buffer; vec: Buffer }[]): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await db
        .insertInto('knowledge_question_vectors')
        .values(rows.slice(i, i + CHUNK).map((r) => ({ model, text_hash: r.hash, vec: r.vec })))
        .onConflict((oc) => oc.columns(['model', 'text_hash']).doNothing())
        .execute();
    }
  }
}
