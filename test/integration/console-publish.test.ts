import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signInToConsole } from '../support/console';
import { useTestStack } from '../support/stack';

/**
 * Issue 29: publishing a draft identical to the live version creates no version, and the console says
 * so instead of announcing a version as newly published.
 */
const ctx = useTestStack({ label: __filename, worker: false });

describe('console publish', () => {
  it('publishes nothing for an unchanged draft and says so; a changed draft becomes the next version', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Publish Co');
    const scope = { accountId, livemode: false };
    const { agents } = ctx.stack.services;
    const agent = await agents.createAgent({ ...scope, config: { name: 'Support', channels: ['chat'] } });
    await agents.publishAgent({ ...scope, agentId: agent.id });
    const s = await signInToConsole(ctx.stack.baseUrl, apiKey);

    const unchanged = await s.post(`/console/agents/${agent.id}/publish`);
    assert.equal(unchanged.status, 303, unchanged.text);
    assert.equal(unchanged.headers.get('location'), `/console/agents/${agent.id}?unchanged=1`);
    assert.match((await s.get(unchanged.headers.get('location')!)).text, /Nothing to publish: the draft is the live version\./);
    assert.deepEqual((await agents.listVersions({ ...scope, agentId: agent.id })).map((v) => v.version), [1]);

    await agents.updateDraft({ ...scope, agentId: agent.id, config: { name: 'Support', channels: ['chat'], instructions: 'Be brief.' } });
    const changed = await s.post(`/console/agents/${agent.id}/publish`);
    assert.equal(changed.headers.get('location'), `/console/agents/${agent.id}?published=2`);
    assert.match((await s.get(changed.headers.get('location')!)).text, /Published: version 2 is live\./);
    assert.deepEqual((await agents.listVersions({ ...scope, agentId: agent.id })).map((v) => v.version), [2, 1]);
  });
});
