import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { ConversationChannel } from '../domain/channels';
import { AppError } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import type { Scope } from '../domain/principal';
import type { AccountsService } from '../accounts/accounts.service';
import type { AgentsService } from '../agents/agents.service';
import { ConversationRepo } from '../conversations/conversation.repo';
import { RunRepo } from '../runs/run.repo';
import type { Handoff, StoredRetrievalItem } from '../runs/run.schemas';
import { EXAMPLE_AGENT_NAME, EXAMPLE_FAQ } from './example-content';

/** Every demo conversation carries this metadata (`demo traffic --remove` deletes by it). */
export const DEMO_METADATA = { demo: 'traffic' } as const;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Questions the example help center answers, with the record that answers them and the reply. */
const ANSWERED: { q: string; record: string; reply: string }[] = [
  { q: 'How long does shipping take?', record: 'Shipping times and costs', reply: 'Standard shipping takes 3 to 5 business days [1].' },
  { q: 'How much is express delivery?', record: 'Shipping times and costs', reply: 'Express delivery costs extra and arrives the next business day [1].' },
  { q: 'How do I return an item?', record: 'Returns', reply: 'You can return an item within 30 days from your account, under Orders [1].' },
  { q: 'When will I get my refund?', record: 'Refunds', reply: 'Refunds reach your original payment method within a few days of the return arriving [1].' },
  { q: 'I forgot my password', record: 'Password reset', reply: 'Open Settings, choose Security and click Reset password [1].' },
  { q: 'What time do you open on Saturday?', record: 'Store opening hours', reply: 'On Saturdays our stores open at 10:00 [1].' },
  { q: 'Is my blender still under warranty?', record: 'Warranty', reply: 'Products carry a two-year warranty from the date of purchase [1].' },
];

/** Questions it cannot answer (the knowledge gaps a newcomer sees), with what a person replied. */
const GAPS: { q: string[]; human: string; near: string }[] = [
  { q: ['Do you offer gift wrapping?', 'Can you wrap my order as a present?', 'Proposez-vous un emballage cadeau ?'], human: 'Yes: gift wrapping is 3 € per item; tick "Gift wrap" at checkout.', near: 'Shipping times and costs' },
  { q: ['Is there a student discount?', 'Gibt es einen Rabatt für Studenten?', 'Do students get a discount?'], human: 'Students get 10 % off with a valid student card, at checkout.', near: 'Refunds' },
  { q: ['Can I pay with Bitcoin?', 'Do you accept cryptocurrency?'], human: 'We do not accept cryptocurrencies; cards and PayPal only.', near: 'Refunds' },
  { q: ['Do you ship to Japan?', 'Can I get my order delivered to Tokyo?'], human: 'We ship to Japan in 7 to 10 days; duties are paid on delivery.', near: 'Shipping times and costs' },
];

/** The example agent's demo: how many conversations a day and what happens in them. */
export interface DemoTrafficInput {
  /** The account (default: the development account npm start creates). */
  accountId?: string;
  days: number;
  /** Conversations per day (default 40). */
  perDay?: number;
  /** The end of the period (default: now). */
  now?: Date;
  /** Seed of the pseudo-random choices (same seed, same traffic). */
  seed?: number;
}

/**
 * `npm run cli -- demo traffic`: plausible conversations of the example agent over the last days, written
 * directly (conversations, messages, runs, tool calls, with their timestamps spread over the days): answered,
 * confirmed, handed off (knowledge gaps among them, some answered by a person), reopened, tool calls, SMS.
 * Every conversation carries DEMO_METADATA, so `remove` takes them all away (messages and runs cascade).
 */
export class DemoTraffic {
  private readonly conversations = new ConversationRepo();
  private readonly runs = new RunRepo();

  constructor(private readonly deps: { db: Kysely<DB>; accounts: AccountsService; agents: AgentsService }) {}

  async generate(input: DemoTrafficInput): Promise<{ account_id: string; agent_id: string; conversations: number; messages: number; runs: number }> {
    const { scope, agentId, version, knowledgeBaseId } = await this.exampleAgent(input.accountId);
    const sourceId = (await this.deps.db.selectFrom('knowledge_sources').select('id').where('knowledge_base_id', '=', knowledgeBaseId).executeTakeFirst())?.id ?? '';
    const random = mulberry32(input.seed ?? 7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const end = (input.now ?? new Date()).getTime();
    const counts = { conversations: 0, messages: 0, runs: 0 };
    const passage = (title: string, score: number, cited: boolean): StoredRetrievalItem => {
      const rec = EXAMPLE_FAQ.find((r) => r.title === title) ?? EXAMPLE_FAQ[0]!;
      return { source: knowledgeBaseId, source_id: sourceId, title: rec.title, snippet: rec.content.slice(0, 240), content: rec.content, url: rec.url ?? null, score, cited };
    };

    for (let d = input.days - 1; d >= 0; d--) {
      const dayStart = end - (d + 1) * DAY;
      const perDay = Math.round((input.perDay ?? 40) * (0.75 + random() * 0.5));
      for (let c = 0; c < perDay; c++) {
        const at = dayStart + Math.floor(random() * (DAY - 2 * HOUR));
        if (at > end - 2 * HOUR) continue;
        const channel: ConversationChannel = random() < 0.35 ? 'sms' : 'chat';
        const roll = random();
        const kind = roll < 0.4 ? 'answered' : roll < 0.55 ? 'confirmed' : roll < 0.75 ? 'gap' : roll < 0.85 ? 'tool' : roll < 0.92 ? 'reopened' : 'requested';
        const conversationId = newId(IdPrefix.conversation);
        let t = at;
        const turns: Turn[] = [];
        const answer = pick(ANSWERED);
        if (kind === 'answered' || kind === 'confirmed' || kind === 'reopened') {
          turns.push({ role: 'customer', text: answer.q, at: t, run: { reply: answer.reply, confidence: 0.7 + random() * 0.25, retrieval: [passage(answer.record, 0.75 + random() * 0.2, true)] } });
          turns.push({ role: 'agent', text: answer.reply, at: (t += 2_000 + random() * 4_000) });
          if (kind === 'confirmed') turns.push({ role: 'customer', text: channel === 'sms' ? 'YES' : 'Yes, that helped, thanks!', at: (t += 60_000 + random() * 600_000), confirms: true });
          if (kind === 'reopened') {
            const again = 'It still has not arrived, can someone look at it?';
            turns.push({ role: 'customer', text: again, at: (t += 2 * DAY + random() * 3 * DAY), run: { handoff: 'customer_requested', confidence: 0.4, retrieval: [passage(answer.record, 0.45, false)] } });
            turns.push({ role: 'human', text: 'Sorry about that! I have opened a claim with the carrier and will write back today.', at: (t += HOUR * (1 + random() * 3)) });
          }
        } else if (kind === 'gap') {
          const gap = pick(GAPS);
          const reason = random() < 0.6 ? 'no_supporting_source' : 'low_confidence';
          turns.push({ role: 'customer', text: pick(gap.q), at: t, run: { handoff: reason, confidence: 0.2 + random() * 0.25, retrieval: [passage(gap.near, 0.25 + random() * 0.2, false)] } });
          if (random() < 0.6) turns.push({ role: 'human', text: gap.human, at: (t += HOUR * (0.2 + random() * 5)) });
        } else if (kind === 'tool') {
          const failed = random() < 0.15;
          const reply = failed ? null : `Your order ACME-${1000 + Math.floor(random() * 9000)} is on its way and should arrive tomorrow.`;
          turns.push({ role: 'customer', text: 'Where is my order?', at: t, run: { reply: reply ?? undefined, handoff: failed ? 'tool_failed' : undefined, confidence: failed ? 0 : 0.9, retrieval: [passage('Order tracking', 0.6, false)], tool: { failed } } });
          if (reply) turns.push({ role: 'agent', text: reply, at: (t += 3_000 + random() * 5_000) });
        } else {
          turns.push({ role: 'customer', text: 'I want to talk to a person please', at: t, run: { handoff: 'customer_requested', confidence: 0, retrieval: [] } });
          turns.push({ role: 'human', text: 'Hi, this is Sam from Acme: how can I help?', at: (t += HOUR * random() * 2) });
        }
        if (t > end) continue;
        const written = await this.writeConversation({ scope, agentId, version, conversationId, channel, startedAt: at, turns, closed: kind === 'answered' || kind === 'confirmed' || kind === 'tool' });
        counts.conversations++;
        counts.messages += written.messages;
        counts.runs += written.runs;
      }
    }
    return { account_id: scope.accountId, agent_id: agentId, ...counts };
  }

  /** Deletes every demo conversation of the account (their messages, runs and tool calls go with them). */
  async remove(input: { accountId?: string }): Promise<{ account_id: string; conversations_removed: number }> {
    const accountId = input.accountId ?? (await this.developmentAccount());
    const res = await this.deps.db
      .deleteFrom('conversations')
      .where('account_id', '=', accountId)
      .where(sql<boolean>`metadata->>'demo' = ${DEMO_METADATA.demo}`)
      .executeTakeFirst();
    return { account_id: accountId, conversations_removed: Number(res.numDeletedRows) };
  }

  private async developmentAccount(): Promise<string> {
    const account = await this.deps.accounts.findAccountByName({ name: 'Development' });
    if (!account) throw new AppError('resource_missing', 'No development account: start the service once (npm start) or pass --account', { param: 'account' });
    return account.id;
  }

  /** The example agent (test mode) of the account, with its live version and knowledge base. */
  private async exampleAgent(accountId?: string) {
    const scope: Scope = { accountId: accountId ?? (await this.developmentAccount()), livemode: false };
    await this.deps.accounts.getAccount({ accountId: scope.accountId });
    const found = await this.deps.agents.findAgentByName({ ...scope, name: EXAMPLE_AGENT_NAME });
    if (!found) throw new AppError('resource_missing', `No "${EXAMPLE_AGENT_NAME}" in account ${scope.accountId} (test mode): npm start creates it in the development account`, { param: 'account' });
    const agent = await this.deps.agents.getAgent({ ...scope, agentId: found.id });
    if (!agent.version) throw new AppError('resource_conflict', 'The example agent has no published version', { param: 'account' });
    return { scope, agentId: agent.id, version: agent.version, knowledgeBaseId: agent.knowledge_sources[0] ?? '' };
  }

  private async writeConversation(c: { scope: Scope; agentId: string; version: number; conversationId: string; channel: ConversationChannel; startedAt: number; turns: Turn[]; closed: boolean }) {
    const { db } = this.deps;
    const last = c.turns.at(-1)!;
    const handoffTurn = [...c.turns].reverse().find((t) => t.run?.handoff);
    const handoff = handoffTurn ? handoffOf(handoffTurn) : null;
    await this.conversations.insertConversation(db, {
      id: c.conversationId, account_id: c.scope.accountId, livemode: c.scope.livemode, agent_id: c.agentId, channel: c.channel,
      status: handoff ? 'handed_off' : c.closed ? 'closed' : 'active',
      customer: JSON.stringify(c.channel === 'sms' ? { phone: `+1555${String(Math.floor(c.startedAt / 1000) % 10_000_000).padStart(7, '0')}` } : { name: 'Demo visitor' }),
      context: '{}', tags: '[]', metadata: JSON.stringify(DEMO_METADATA), handoff: handoff ? JSON.stringify(handoff) : null,
      created_at: new Date(c.startedAt), updated_at: new Date(last.at), closed_at: c.closed && !handoff ? new Date(last.at + HOUR) : null,
    });
    let runs = 0;
    let lastAnswer: string | undefined;
    for (const [i, turn] of c.turns.entries()) {
      const messageId = newId(IdPrefix.message);
      await this.conversations.insertMessage(db, {
        id: messageId, account_id: c.scope.accountId, livemode: c.scope.livemode, conversation_id: c.conversationId, role: turn.role,
        channel: c.channel, content: turn.text, attachments: '[]', run_id: null, created_at: new Date(turn.at),
      });
      if (turn.role === 'agent') lastAnswer = messageId;
      // The customer's yes is a thumbs-up on the answer, as the service stores it (a confirmed resolution).
      if (turn.confirms && lastAnswer) {
        await this.conversations.insertConfirmation(db, { id: newId(IdPrefix.feedback), account_id: c.scope.accountId, livemode: c.scope.livemode, conversation_id: c.conversationId, message_id: lastAnswer, created_at: new Date(turn.at) });
      }
      if (!turn.run) continue;
      runs++;
      const runId = newId(IdPrefix.run);
      const replyAt = c.turns[i + 1]?.at ?? turn.at + 3_000;
      await this.runs.insertRun(db, {
        id: runId, account_id: c.scope.accountId, livemode: c.scope.livemode, conversation_id: c.conversationId, message_id: messageId,
        agent_id: c.agentId, agent_version: c.version, channel: c.channel, status: 'completed', confidence: turn.run.confidence,
        retrieval: JSON.stringify(turn.run.retrieval), retrieval_mode: 'hybrid', decision: null,
        reply: turn.run.reply ? JSON.stringify({ role: 'agent', content: turn.run.reply }) : null,
        handoff: turn.run.handoff ? JSON.stringify(handoffOf(turn)) : null,
        usage: JSON.stringify({ input_tokens: 0, output_tokens: 0 }), error: null, guardrail_notes: '[]', required_action: null, reply_message_id: null,
        created_at: new Date(turn.at), updated_at: new Date(replyAt), started_at: new Date(turn.at + 50), completed_at: new Date(Math.min(replyAt, turn.at + 2_500)),
      });
      if (turn.run.tool) {
        await this.runs.insertToolCalls(db, [{
          id: newId(IdPrefix.toolCall), run_id: runId, seq: 1, tool: 'track_order', arguments: JSON.stringify({ order_id: 'ACME-1234' }),
          status: turn.run.tool.failed ? 'error' : 'ok', result: turn.run.tool.failed ? null : JSON.stringify({ status: 'in_transit', eta: 'tomorrow' }),
          error: turn.run.tool.failed ? JSON.stringify({ code: 'tool_error', message: 'The order service answered 503' }) : null,
          latency_ms: 180 + Math.floor((turn.at / 7) % 400), expires_at: null, decision_note: null, created_at: new Date(turn.at + 100), updated_at: new Date(turn.at + 400),
        }]);
      }
    }
    return { messages: c.turns.length, runs };
  }
}

interface Turn {
  role: 'customer' | 'agent' | 'human';
  text: string;
  at: number;
  /** The customer's yes to the answer before (stored as its thumbs-up). */
  confirms?: boolean;
  run?: { reply?: string; handoff?: Handoff['reason']; confidence: number; retrieval: StoredRetrievalItem[]; tool?: { failed: boolean } };
}

function handoffOf(turn: Turn): Handoff {
  return { reason: turn.run!.handoff!, queue: 'support', summary: `Customer wrote: "${turn.text}".`, suggested_reply: '' };
}

/** A small seeded pseudo-random generator (the same seed gives the same traffic). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
