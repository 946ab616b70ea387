import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signInToConsole } from '../support/console';
import { useTestStack } from '../support/stack';

/**
 * Issue 19: the console's errors take their status from the service's one error table (domain/errors.ts),
 * on its error page and in its JSON errors, as the API does.
 */
const ctx = useTestStack({ label: __filename, worker: false });

const base = () => ctx.stack.baseUrl;

/** The Accept header of a console page's form, and of its scripts. */
const asHtml = { accept: 'text/html' };
const asJson = { accept: 'application/json' };

describe('console errors from the one error table', () => {
  it('answers a reply to a closed conversation with 409 conversation_closed, on the error page and in JSON', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Closed Co');
    const scope = { accountId, livemode: false };
    const agent = await ctx.stack.services.agents.createAgent({ ...scope, config: { name: 'Support', channels: ['chat'] } });
    await ctx.stack.services.agents.publishAgent({ ...scope, agentId: agent.id });
    const conversation = await ctx.stack.services.conversations.createConversation({ ...scope, agent_id: agent.id });
    const s = await signInToConsole(base(), apiKey);
    assert.equal((await s.post(`/console/inbox/${conversation.id}/close`, {}, asHtml)).status, 303);

    const page = await s.post(`/console/inbox/${conversation.id}/reply`, { content: 'Still there?' }, asHtml);
    assert.equal(page.status, 409, 'the table says 409 (the console used to answer 400)');
    assert.match(page.text, /That did not work/);
    assert.match(page.text, new RegExp(`Conversation ${conversation.id} is closed`));

    const json = await s.post(`/console/inbox/${conversation.id}/reply`, { content: 'Still there?' }, asJson);
    assert.equal(json.status, 409);
    assert.equal((JSON.parse(json.text) as { error: { code: string } }).error.code, 'conversation_closed');
  });

  it('keeps 404 for a missing object and 400 for a form that fails its schema', async () => {
    const { apiKey } = await ctx.stack.newAccount('Missing Co');
    const s = await signInToConsole(base(), apiKey);
    const missing = await s.post('/console/inbox/cnv_missing/close', {}, asHtml);
    assert.equal(missing.status, 404);
    assert.match(missing.text, /<h1>Not found<\/h1>/);
    const invalid = await s.post('/console/inbox/cnv_missing/reply', { content: '   ' }, asJson);
    assert.equal(invalid.status, 400);
    assert.equal((JSON.parse(invalid.text) as { error: { code: string } }).error.code, 'parameter_invalid');
  });
});
