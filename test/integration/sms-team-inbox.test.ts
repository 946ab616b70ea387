import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { smsOfConversationMessage } from '../../src/channels/sms/sms-reply.channel';
import { seedAgent } from '../support/agents';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';

/**
 * A phone number with no agent attached is a plain human inbox: a customer's SMS opens (or continues) a
 * conversation for the team, and a teammate's reply goes out by SMS from that number.
 */
const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });

let seq = 0;
const freshNumber = () => `+4474011${String(++seq).padStart(5, '0')}`;

describe('an inbound SMS to a number with no agent', () => {
  it("reaches the inbox as the team's conversation (no agent, no run, unread) and a human reply goes out by SMS from that number", async () => {
    const f = await seedAgent(ctx.stack);
    const scope = { accountId: f.accountId, livemode: f.livemode };
    // The account has an agent on another number: the team's number must not route to it.
    const agentNumber = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ ...scope, number: freshNumber() });
    await ctx.stack.services.phoneNumbers.attachAgent({ ...scope, phoneNumberId: agentNumber.id, agentId: f.agentId });
    const teamNumber = freshNumber();
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ ...scope, number: teamNumber });
    const customer = freshNumber();

    const inbound = { carrier: 'sandbox', carrierMessageId: `mo-${customer}-1`, from: customer, to: teamNumber, body: 'Hi, is my table for 4 tonight confirmed?', receivedAt: new Date(), sandbox: true };
    await ctx.stack.services.inboundSms.onInbound(inbound);
    await ctx.stack.services.inboundSms.onInbound(inbound); // a redelivery posts nothing twice

    const list = await f.call('GET', '/v1/conversations?status=handed_off');
    const mine = list.body.data.filter((c: any) => c.customer.phone === customer);
    assert.equal(mine.length, 1, JSON.stringify(list.body.data));
    const conversation = mine[0];
    assert.equal(conversation.agent_id, null);
    assert.equal(conversation.channel, 'sms');
    assert.equal(conversation.unread, true);
    const messages = (await f.call('GET', `/v1/conversations/${conversation.id}/messages`)).body.data;
    assert.deepEqual(messages.map((m: any) => [m.role, m.content, m.run_id]), [['customer', 'Hi, is my table for 4 tonight confirmed?', null]]);
    assert.equal((await ctx.stack.database.db.selectFrom('runs').select('id').where('account_id', '=', f.accountId).execute()).length, 0, 'no run');

    // The customer writes again: the same conversation.
    await ctx.stack.services.inboundSms.onInbound({ ...inbound, carrierMessageId: `mo-${customer}-2`, body: 'And can we bring a dog?' });
    assert.equal((await f.call('GET', `/v1/conversations/${conversation.id}/messages`)).body.data.length, 2);

    // A teammate answers (the console's reply posts the same human message): it goes out by SMS from the team's number.
    const reply = await f.call('POST', `/v1/conversations/${conversation.id}/messages`, { role: 'human', content: 'Yes, confirmed for 8 pm. Dogs are welcome on the terrace.' });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const sent = await pollUntil('the reply SMS', async () => {
      const res = await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`);
      return res.body.data.length > 0 && res.body.data;
    });
    assert.equal(sent.length, 1);
    assert.equal(sent[0].from, teamNumber);
    assert.equal(sent[0].body, 'Yes, confirmed for 8 pm. Dogs are welcome on the terrace.');
    assert.equal(sent[0].id, smsOfConversationMessage(reply.body.id));

    // Nothing to hand back to: closing the handoff is refused; closing the conversation works.
    const back = await f.call('POST', `/v1/conversations/${conversation.id}/handoff/close`, { note: 'done' });
    assert.equal(back.status, 409, JSON.stringify(back.body));
    assert.equal((await f.call('POST', `/v1/conversations/${conversation.id}/close`)).body.status, 'closed');
  });
});
