import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXAMPLE_AGENT_NAME, EXAMPLE_KNOWLEDGE_BASE_NAME, ensureExampleAgent } from '../../src/app/dev-examples';
import { silentLogger } from '../../src/observability/logger';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

/**
 * The first minutes after `npm start`: the development account's example help center and live example
 * agent, created once, answering each FAQ topic with a cited passage under its confidence floor.
 */
const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });

/** One plainly worded question per FAQ row, with the row it must cite. */
const QUESTIONS: [string, string][] = [
  ['How long does shipping take?', 'Shipping times and costs'],
  ['How do I return an item?', 'Returns'],
  ['When will I get my refund?', 'Refunds'],
  ['How do I reset my password?', 'Password reset'],
  ['What are your opening hours?', 'Store opening hours'],
  ['How can I contact customer service?', 'Contact us'],
  ['What does the warranty cover?', 'Warranty'],
  ['How do I track my order?', 'Order tracking'],
];

describe('the example agent of the development account', () => {
  it('is created once: a second start finds the same agent and knowledge base', async () => {
    const { accountId } = await ctx.stack.newAccount('Development');
    const { services } = ctx.stack;
    const first = await ensureExampleAgent({ services, accountId, log: silentLogger() });
    assert.equal(first.created, true);
    const second = await ensureExampleAgent({ services, accountId, log: silentLogger() });
    assert.deepEqual(second, { ...first, created: false });

    const agents = await services.agents.listAgents({ accountId, livemode: false, page: { limit: 100 } });
    assert.deepEqual(agents.data.map((a) => [a.name, a.status, a.version]), [[EXAMPLE_AGENT_NAME, 'live', 1]]);
    assert.deepEqual(agents.data[0]!.channels, ['chat', 'sms']);
    assert.equal(agents.data[0]!.retrieval_required, true);
    const bases = await services.knowledgeBases.listBases({ accountId, livemode: false, page: { limit: 100 } });
    assert.deepEqual(bases.data.map((b) => b.name), [EXAMPLE_KNOWLEDGE_BASE_NAME]);
  });

  it('answers every FAQ topic with a cited passage, and hands off what the help center does not cover', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Development');
    const example = await ensureExampleAgent({ services: ctx.stack.services, accountId, log: silentLogger() });
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const askNew = async (content: string) => {
      const conversation = await call('POST', '/v1/conversations', { agent_id: example.agentId });
      assert.equal(conversation.status, 201, JSON.stringify(conversation.body));
      const posted = await call('POST', `/v1/conversations/${conversation.body.id}/messages`, { role: 'customer', content });
      assert.equal(posted.status, 201, JSON.stringify(posted.body));
      return posted.body.run;
    };
    for (const [question, title] of QUESTIONS) {
      const run = await askNew(question);
      assert.equal(run.status, 'completed', question);
      assert.ok(run.reply, `${question}: ${JSON.stringify(run.handoff)} (confidence ${run.confidence})`);
      assert.equal(run.retrieval.find((r: { cited: boolean }) => r.cited)?.title, title, question);
    }
    const offTopic = await askNew('Can I pay with bitcoin?');
    assert.equal(offTopic.reply, null);
    assert.equal(offTopic.handoff.reason, 'no_supporting_source');
  });
});
