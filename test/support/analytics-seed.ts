import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema';
import { IdPrefix, newId } from '../../src/domain/ids';

/**
 * Raw rows as the service stores them (conversations, transcript messages, runs, tool calls), at chosen times:
 * what the analytics rollup reads. Tests of formulas over days use it where driving real time is impossible.
 */
export function analyticsSeeder(db: Kysely<DB>, f: { accountId: string; livemode: boolean; agentId: string }) {
  return {
    async conversation(createdAt: Date, channel: 'chat' | 'sms' | 'email' = 'chat') {
      const id = newId(IdPrefix.conversation);
      await db.insertInto('conversations').values({
        id, account_id: f.accountId, livemode: f.livemode, agent_id: f.agentId, channel, status: 'active',
        customer: '{}', context: '{}', tags: '[]', metadata: '{}', handoff: null, created_at: createdAt, updated_at: createdAt,
      }).execute();
      return id;
    },
    async message(conversationId: string, role: 'customer' | 'agent' | 'human', at: Date) {
      const id = newId(IdPrefix.message);
      await db.insertInto('conversation_messages').values({ id, account_id: f.accountId, livemode: f.livemode, conversation_id: conversationId, role, content: role, attachments: '[]', run_id: null, created_at: at }).execute();
      return id;
    },
    async run(conversationId: string, messageId: string, at: Date, opts: { handoff?: string; confidence?: number; latencyMs?: number; tools?: Array<{ tool: string; status: string }> } = {}) {
      const id = newId(IdPrefix.run);
      await db.insertInto('runs').values({
        id, account_id: f.accountId, livemode: f.livemode, conversation_id: conversationId, message_id: messageId, agent_id: f.agentId, agent_version: 1, channel: 'chat',
        status: 'completed', confidence: opts.confidence ?? 0.8, retrieval: '[]', decision: null,
        reply: opts.handoff ? null : JSON.stringify({ role: 'agent', content: 'ok' }), handoff: opts.handoff ? JSON.stringify({ reason: opts.handoff }) : null,
        usage: '{}', error: null, guardrail_notes: '[]', required_action: null, reply_message_id: null,
        created_at: at, started_at: at, completed_at: new Date(at.getTime() + (opts.latencyMs ?? 1200)),
      }).execute();
      for (const [seq, t] of (opts.tools ?? []).entries()) {
        await db.insertInto('run_tool_calls').values({ id: newId(IdPrefix.toolCall), run_id: id, seq, tool: t.tool, arguments: '{}', status: t.status as 'ok', result: null, error: null, latency_ms: 300, expires_at: null, decision_note: null, created_at: at, updated_at: at }).execute();
      }
      return id;
    },
  };
}

/**
 * Two weeks of plausible traffic for one agent: answered and silent (assumed), thumbs-up (confirmed), handed off
 * for several reasons, reopened, with tool calls. Deterministic (no randomness): the same rows every time.
 */
export async function seedTwoWeeks(db: Kysely<DB>, f: { accountId: string; livemode: boolean; agentId: string }, endAt: Date) {
  const s = analyticsSeeder(db, f);
  const reasons = ['no_supporting_source', 'low_confidence', 'no_supporting_source', 'customer_requested', 'tool_failed', 'no_supporting_source'];
  let handoffs = 0;
  for (let day = 14; day >= 1; day--) {
    const perDay = 4 + (day % 5);
    for (let i = 0; i < perDay; i++) {
      const t0 = new Date(endAt.getTime() - day * 86_400_000 + (9 + i) * 3_600_000);
      const at = (ms: number) => new Date(t0.getTime() + ms);
      const c = await s.conversation(t0, i % 3 === 2 ? 'sms' : 'chat');
      const m = await s.message(c, 'customer', t0);
      const kind = (day * 7 + i) % 6;
      if (kind === 2 && i % 2 === 0) {
        // Handed off at once: the agent never answered (not involved).
        await s.run(c, m, t0, { handoff: reasons[handoffs++ % reasons.length], confidence: 0.2, latencyMs: 700 });
        await s.message(c, 'human', at(12 * 60_000));
      } else if (kind === 0 || kind === 4) {
        const m2 = await s.message(c, 'customer', at(60_000));
        await s.run(c, m, t0, { confidence: 0.55 + (i % 4) * 0.1, latencyMs: 900 + i * 150 });
        await s.message(c, 'agent', at(30_000));
        await s.run(c, m2, at(60_000), { handoff: reasons[handoffs++ % reasons.length], confidence: 0.3, latencyMs: 1400 });
        await s.message(c, 'human', at(20 * 60_000 + i * 60_000));
      } else {
        await s.run(c, m, t0, { confidence: 0.6 + (i % 4) * 0.1, latencyMs: 800 + i * 200, tools: kind === 3 ? [{ tool: 'lookup_order', status: i % 2 ? 'ok' : 'error' }] : [] });
        await s.message(c, 'agent', at(20_000));
        if (kind === 1) await db.insertInto('conversation_feedback').values({ id: newId(IdPrefix.feedback), account_id: f.accountId, livemode: f.livemode, conversation_id: c, message_id: null, rating: 'up', created_at: at(90_000) }).execute();
        if (kind === 5) await s.message(c, 'customer', at(26 * 3_600_000));
      }
    }
  }
}
