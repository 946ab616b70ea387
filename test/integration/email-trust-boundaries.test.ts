import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { seedAgent } from '../support/agents';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename });

const uid = () => randomBytes(6).toString('hex');

describe('inbound email across accounts (issue 28)', () => {
  it("another account's address does not make a customer's mail a reply loop (28 #4)", async () => {
    const a = await seedAgent(ctx.stack, { channels: ['chat', 'email'] });
    const address = `support-${uid()}@acme-${uid()}.test`;
    const added = await a.call('POST', '/v1/email_addresses', { address, agent_id: a.agentId });
    assert.equal(added.status, 201, JSON.stringify(added.body));

    // Account B (a test key) registers the customer's own address.
    const carol = `carol-${uid()}@customer-corp.test`;
    const b = await ctx.stack.newAccount('Account B');
    const squat = await apiClient(ctx.stack.baseUrl, b.apiKey)('POST', '/v1/email_addresses', { address: carol });
    assert.equal(squat.status, 201, JSON.stringify(squat.body));

    const received = await a.call('POST', '/v1/test_helpers/inbound_emails', { from: carol, to: address, subject: 'Order', text: 'Where is my order?' });
    assert.equal(received.status, 200, JSON.stringify(received.body));
    assert.equal(received.body.status, 'accepted', JSON.stringify(received.body));
    assert.match(received.body.conversation_id, /^cnv_/);

    // Mail from one of the account's own addresses is still a loop, and ignored.
    const own = `noreply-${uid()}@acme-${uid()}.test`;
    assert.equal((await a.call('POST', '/v1/email_addresses', { address: own })).status, 201);
    const loop = await a.call('POST', '/v1/test_helpers/inbound_emails', { from: own, to: address, subject: 'Loop', text: 'An echo' });
    assert.equal(loop.body.status, 'ignored');
    assert.match(loop.body.reason, /own addresses/);
  });
});
