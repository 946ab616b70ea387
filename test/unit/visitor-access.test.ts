import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VisitorPrincipal } from '../../src/domain/principal';
import { canVisitorRead, type VisitorReadableConversation } from '../../src/domain/visitor-access';

const visitor = (over: Partial<VisitorPrincipal> = {}): VisitorPrincipal => ({
  accountId: 'acct_1', mode: 'test', keyId: 'pkey_1', agentId: 'agt_1', visitorId: 'vis_1', visitorToken: 'vt_vis_1.sig', revoked: new AbortController().signal, ...over,
});
const conversation = (over: Partial<VisitorReadableConversation> = {}): VisitorReadableConversation => ({
  account_id: 'acct_1', livemode: false, agent_id: 'agt_1', test: false, visitor_id: 'vis_1', customer: {}, ...over,
});

describe('canVisitorRead', () => {
  it("gives a visitor the anonymous conversations their token opened, and nothing of another account, mode, agent or visitor", () => {
    assert.equal(canVisitorRead(visitor(), conversation()), true);
    assert.equal(canVisitorRead(visitor(), conversation({ visitor_id: 'vis_2' })), false);
    assert.equal(canVisitorRead(visitor(), conversation({ visitor_id: null })), false);
    assert.equal(canVisitorRead(visitor(), conversation({ account_id: 'acct_2' })), false);
    assert.equal(canVisitorRead(visitor(), conversation({ livemode: true })), false);
    assert.equal(canVisitorRead(visitor({ mode: 'live' }), conversation()), false);
    assert.equal(canVisitorRead(visitor(), conversation({ agent_id: 'agt_2' })), false);
    assert.equal(canVisitorRead(visitor(), conversation({ test: true })), false);
  });

  it('gives a conversation linked to a customer to a verified JWT for that customer only', () => {
    const linked = conversation({ customer: { id: 'cus_1' } });
    assert.equal(canVisitorRead(visitor(), linked), false, 'the anonymous token that opened it no longer suffices');
    assert.equal(canVisitorRead(visitor({ visitorId: 'vis_9', customer: { id: 'cus_1' } }), linked), true);
    assert.equal(canVisitorRead(visitor({ customer: { id: 'cus_2' } }), linked), false);
    // A business's own conversation with that customer (no visitor) follows the customer too.
    assert.equal(canVisitorRead(visitor({ customer: { id: 'cus_1' } }), conversation({ visitor_id: null, customer: { id: 'cus_1' } })), true);
  });
});
