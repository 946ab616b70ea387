import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiClient } from '../support/http';
import { ask, HELP_CENTER, openConversation, seedAgent } from '../support/agents';
import { consoleRequest, consoleSession } from '../support/console';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { emailFromName, signedSms, signerOf } from '../../src/conversations/human-signature';

/**
 * The support team through the API: a queue names its teammates (the team emails about its handoffs go to
 * them), the conversation carries its assignee, and a person's reply by SMS is signed with their name when
 * the account turns it on (email: in From).
 */
const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const PASSWORD = 'correct horse battery';

let n = 0;
async function teammate(accountId: string, name: string, displayName?: string) {
  const email = `${name}.${++n}@shop.test`;
  const user = await ctx.stack.services.consoleSessions.createUser({ accountId, email, password: PASSWORD, displayName });
  return { id: user.id, email };
}

async function signIn(email: string) {
  const res = await consoleRequest(ctx.stack.baseUrl, '/console/sign-in', { form: { email, password: PASSWORD }, headers: { origin: ctx.stack.baseUrl } });
  assert.equal(res.status, 303, res.text);
  return consoleSession(ctx.stack.baseUrl, res.cookie!);
}

describe('the support team through the API', () => {
  it("a queue names its teammates (only the account's), and the team email about its handoffs goes to them", async () => {
    const f = await seedAgent(ctx.stack, { guardrails: { restricted_topics: ['refund'], restricted_topic_action: 'handoff' }, handoff: { default_queue: 'billing', on_low_confidence: true } } as never);
    const other = await ctx.stack.newAccount();
    const ana = await teammate(f.accountId, 'ana');
    const ben = await teammate(f.accountId, 'ben');
    const stranger = await teammate(other.accountId, 'eve');

    // Another account's teammate is refused, and nothing is created.
    const refused = await f.call('POST', '/v1/queues', { name: 'billing', time_zone: 'UTC', teammate_ids: [ana.id, stranger.id] });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.error.param, 'teammate_ids');
    assert.deepEqual((await f.call('GET', '/v1/queues')).body.data, []);

    const created = await f.call('POST', '/v1/queues', { name: 'billing', time_zone: 'UTC', teammate_ids: [ana.id, ben.id, ana.id] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.teammate_ids, [ana.id, ben.id].sort());
    // An update without teammate_ids keeps them; with them replaces them.
    assert.deepEqual((await f.call('POST', `/v1/queues/${created.body.id}`, { holidays: ['2026-12-25'] })).body.teammate_ids, [ana.id, ben.id].sort());
    const updated = await f.call('POST', `/v1/queues/${created.body.id}`, { teammate_ids: [ana.id] });
    assert.deepEqual(updated.body.teammate_ids, [ana.id]);
    assert.deepEqual((await f.call('GET', '/v1/queues')).body.data.map((q: any) => q.teammate_ids), [[ana.id]]);
    // The other account cannot read or change it.
    assert.equal((await apiClient(ctx.stack.baseUrl, other.apiKey)('POST', `/v1/queues/${created.body.id}`, { teammate_ids: [] })).status, 404);

    // The console's queue form saves the ticked teammates too.
    const console_ = await signIn(ana.email);
    const form = await console_.get(`/console/queues?edit=${created.body.id}`);
    assert.match(form.text, new RegExp(`name="teammate_ids" value="${ben.id}"`));
    const saved = await console_.post(`/console/queues/${created.body.id}`, { name: 'billing', time_zone: 'UTC', always_open: '1', holidays: '', teammate_ids: ben.id });
    assert.equal(saved.status, 303, saved.text);
    assert.deepEqual((await f.call('GET', `/v1/queues/${created.body.id}`)).body.teammate_ids, [ben.id]);

    // A test-mode handoff to the queue emails nobody: test mode never reaches a real relay (as its email replies).
    const inTest = await openConversation(f, { customer: { name: 'Mia' } });
    await ask(f, inTest, 'I want a refund for order 12');
    assert.equal((await f.call('GET', `/v1/conversations/${inTest}`)).body.handoff?.queue, 'billing');
    assert.equal(await ctx.stack.services.inbox.claimTeamAlert(inTest, 60_000), undefined);

    // Live: a handoff to the queue emails its teammate only.
    const live = await seedAgent(ctx.stack, { guardrails: { restricted_topics: ['refund'], restricted_topic_action: 'handoff' }, handoff: { default_queue: 'billing', on_low_confidence: true } } as never, HELP_CENTER, 'live');
    const [lana, lben, lcy] = [await teammate(live.accountId, 'ana'), await teammate(live.accountId, 'ben'), await teammate(live.accountId, 'cy')];
    assert.equal((await live.call('POST', '/v1/queues', { name: 'billing', time_zone: 'UTC', teammate_ids: [lben.id] })).status, 201);
    const cnv = await openConversation(live, { customer: { name: 'Mia' } });
    await ask(live, cnv, 'I want a refund for order 12');
    assert.equal((await live.call('GET', `/v1/conversations/${cnv}`)).body.handoff?.queue, 'billing');
    assert.deepEqual((await ctx.stack.services.inbox.claimTeamAlert(cnv, 60_000))?.to, [lben.email]);

    // The queue's teammate disabled: nobody of the queue can act, so every teammate who can sign in is told.
    await ctx.stack.services.consoleSessions.disableUser({ accountId: live.accountId, userId: lben.id });
    const second = await openConversation(live);
    await ask(live, second, 'Refund please');
    assert.deepEqual((await ctx.stack.services.inbox.claimTeamAlert(second, 60_000))?.to.sort(), [lana.email, lcy.email].sort());
  });

  it('the conversation carries its assignee in the retrieve and the list, and only in its own account', async () => {
    const f = await seedAgent(ctx.stack);
    const dana = await teammate(f.accountId, 'dana', 'Dana');
    const cnv = await openConversation(f, { customer: { name: 'Noa' } });
    const unassigned = await f.call('GET', `/v1/conversations/${cnv}`);
    assert.equal(unassigned.body.assignee, null);

    // Dana claims it in the console.
    const console_ = await signIn(dana.email);
    assert.equal((await console_.post(`/console/inbox/${cnv}/claim`)).status, 303);
    const got = await f.call('GET', `/v1/conversations/${cnv}`);
    assert.deepEqual(got.body.assignee, { id: dana.id, email: dana.email, display_name: 'Dana' });
    const list = await f.call('GET', '/v1/conversations');
    assert.deepEqual(list.body.data.find((c: any) => c.id === cnv).assignee, { id: dana.id, email: dana.email, display_name: 'Dana' });
    // Another account sees neither the conversation nor its assignee.
    const other = await ctx.stack.newAccount();
    assert.equal((await apiClient(ctx.stack.baseUrl, other.apiKey)('GET', `/v1/conversations/${cnv}`)).status, 404);
    // The OpenAPI document describes it.
    const doc = (await f.call('GET', '/v1/openapi.json')).body;
    assert.ok(doc.components.schemas.Conversation.properties.assignee, 'assignee in the OpenAPI Conversation');
  });

  it("signs a teammate's SMS reply with their name only once the account turns it on; bad settings change nothing", async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    assert.equal((await call('GET', '/v1/account')).body.sign_sms_replies, false);
    const bad = await call('POST', '/v1/account', { sign_sms_replies: 'yes' });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal((await call('POST', '/v1/account', { name: 'x' })).status, 400, 'unknown fields are refused');
    assert.equal((await call('GET', '/v1/account')).body.sign_sms_replies, false);

    const teamNumber = `+44740990${String(Date.now() % 10000).padStart(4, '0')}`;
    const customer = `+44740991${String(Date.now() % 10000).padStart(4, '0')}`;
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: teamNumber });
    await ctx.stack.services.inboundSms.onInbound({ carrier: 'sandbox', carrierMessageId: `mo-${customer}`, from: customer, to: teamNumber, body: 'Is my table confirmed?', receivedAt: new Date(), sandbox: true });
    const cnv = (await call('GET', '/v1/conversations?status=handed_off')).body.data.find((c: any) => c.customer.phone === customer);
    assert.ok(cnv);
    const dana = await teammate(accountId, 'dana', 'Dana');
    const console_ = await signIn(dana.email);
    const sentBodies = async (count: number) => pollUntil(`${count} reply SMS`, async () => {
      const res = await call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`);
      return res.body.data.length >= count && res.body.data.map((m: any) => m.body as string);
    });

    assert.equal((await console_.post(`/console/inbox/${cnv.id}/reply`, { content: 'Yes, 8 pm.' })).status, 303);
    assert.deepEqual(await sentBodies(1), ['Yes, 8 pm.']);

    const on = await call('POST', '/v1/account', { sign_sms_replies: true });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal(on.body.sign_sms_replies, true);
    assert.equal((await console_.post(`/console/inbox/${cnv.id}/reply`, { content: 'See you then.' })).status, 303);
    const bodies = await sentBodies(2);
    // Signed with a plain hyphen on the handset: a dash would turn the whole SMS into UCS-2 (70 characters a segment).
    assert.ok(bodies.includes('See you then.\n- Dana'), JSON.stringify(bodies));
    // The transcript keeps what the person wrote, with them as its author.
    const messages = (await call('GET', `/v1/conversations/${cnv.id}/messages`)).body.data;
    const last = messages.at(-1);
    assert.equal(last.content, 'See you then.');
    assert.equal(last.author.name, 'Dana');
    // An API key's reply has no name: never signed.
    assert.equal((await call('POST', `/v1/conversations/${cnv.id}/messages`, { role: 'human', content: 'From the API.' })).status, 201);
    assert.ok((await sentBodies(3)).includes('From the API.'));
  });

  it('names a person in the email From and the SMS signature; never an agent or a key', () => {
    const dana = { role: 'human' as const, author: { type: 'teammate' as const, id: 'cu_1', name: 'Dana' } };
    assert.equal(emailFromName(signerOf(dana), 'Shop'), 'Dana at Shop');
    assert.equal(emailFromName(signerOf(dana), null), 'Dana');
    assert.equal(emailFromName(signerOf({ role: 'agent', author: null }), 'Shop'), 'Shop');
    assert.equal(emailFromName(signerOf({ role: 'human', author: { type: 'api_key', id: 'key_1', name: null } }), null), null);
    assert.equal(signedSms('Hi', signerOf({ role: 'human', author: { type: 'teammate', id: 'cu_2', name: 'Eve\r\nBcc: x' } })), 'Hi\n— Eve Bcc: x');
  });
});
