import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema';
import { IdPrefix, newId } from '../../src/domain/ids';

/** A published agent row with no knowledge (enough for the gap report, which reads runs). */
export async function seedBareAgent(db: Kysely<DB>, input: { accountId: string; livemode: boolean; name?: string }): Promise<string> {
  const id = newId(IdPrefix.agent);
  await db.insertInto('agents').values({
    id, account_id: input.accountId, livemode: input.livemode, name: input.name ?? `Agent ${id.slice(-6)}`, draft: JSON.stringify({}), live_version: 1,
    created_at: new Date(), updated_at: new Date(),
  }).execute();
  return id;
}

/**
 * One customer question in a conversation of its own whose run handed off for `reason` at `at`, with the
 * best passage its retrieval found and, when given, a person's reply after it.
 */
export async function seedGapQuestion(db: Kysely<DB>, input: {
  accountId: string; livemode: boolean; agentId: string; text: string; at: Date;
  channel?: 'chat' | 'sms' | 'email'; reason?: 'no_supporting_source' | 'low_confidence' | 'customer_requested';
  test?: boolean; locale?: string; humanReply?: string; bestScore?: number; conversationId?: string;
}): Promise<{ conversationId: string; messageId: string; runId: string }> {
  const channel = input.channel ?? 'chat';
  const conversationId = input.conversationId ?? newId(IdPrefix.conversation);
  if (!input.conversationId) {
    await db.insertInto('conversations').values({
      id: conversationId, account_id: input.accountId, livemode: input.livemode, agent_id: input.agentId, channel, status: 'handed_off',
      customer: JSON.stringify(input.locale ? { locale: input.locale } : {}), context: '{}', tags: '[]', metadata: '{}', handoff: null,
      created_at: input.at, updated_at: input.at, closed_at: null, test: input.test ?? false,
    }).execute();
  }
  const messageId = newId(IdPrefix.message);
  await db.insertInto('conversation_messages').values({
    id: messageId, account_id: input.accountId, livemode: input.livemode, conversation_id: conversationId, role: 'customer', channel,
    content: input.text, attachments: '[]', run_id: null, created_at: input.at,
  }).execute();
  const runId = newId(IdPrefix.run);
  const best = input.bestScore === undefined ? [] : [{ source: 'kb_x', source_id: 'src_x', title: 'Shipping times', snippet: 'Standard shipping takes 3 to 5 days.', content: 'Standard shipping takes 3 to 5 days.', url: null, score: input.bestScore, cited: false }];
  await db.insertInto('runs').values({
    id: runId, account_id: input.accountId, livemode: input.livemode, conversation_id: conversationId, message_id: messageId, agent_id: input.agentId,
    agent_version: 1, channel, status: 'completed', confidence: 0.2, retrieval: JSON.stringify(best), retrieval_mode: 'hybrid', decision: null, reply: null,
    handoff: JSON.stringify({ reason: input.reason ?? 'no_supporting_source', queue: 'support', summary: '', suggested_reply: '' }),
    usage: JSON.stringify({ input_tokens: 0, output_tokens: 0 }), error: null, guardrail_notes: '[]', required_action: null, reply_message_id: null,
    created_at: input.at, updated_at: input.at, started_at: input.at, completed_at: input.at,
  }).execute();
  if (input.humanReply) {
    await db.insertInto('conversation_messages').values({
      id: newId(IdPrefix.message), account_id: input.accountId, livemode: input.livemode, conversation_id: conversationId, role: 'human', channel,
      content: input.humanReply, attachments: '[]', run_id: null, created_at: new Date(input.at.getTime() + 60_000),
    }).execute();
  }
  return { conversationId, messageId, runId };
}
