import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import type { Config } from '../../src/config/env';
import { IdPrefix, newId } from '../../src/domain/ids';
import { MAX_NOTES_PER_CONVERSATION } from '../../src/conversations/conversation-notes.service';
import { MAX_OPEN_INVITES } from '../../src/console/teammates.service';
import { MAX_SAVED_REPLIES } from '../../src/conversations/saved-replies.service';
import { openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { buildTestConfig } from '../support/config';
import { consoleRequest, consoleSession, signInToConsole } from '../support/console';
import { useTestStack } from '../support/stack';

/**
 * An attacker's pass over the team inbox, analytics and widget surfaces: oversized notes and saved replies,
 * hostile search strings, feedback floods, invites from a test key, and another account's ids on every route.
 * Each refusal is in the API's error format (or the console's page) and changes nothing.
 */
const recipients: string[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onRcptTo(address, _session, callback) {
    recipients.push(address.address);
    callback();
  },
  onData(stream, _session, callback) {
    stream.resume();
    stream.on('end', () => callback());
  },
});
const email: Config['email'] = { ...buildTestConfig().email, smtp: { host: '127.0.0.1', port: 0, secure: false, timeoutMs: 5000 }, from: 'team@converse.test', messageIdDomain: 'converse.test' };
before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  email.smtp!.port = (smtp.server.address() as AddressInfo).port;
});
after(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const ctx = useTestStack({ label: __filename, config: { email } });

const errorOf = (res: { status: number; body: any }, status: number, code?: string) => {
  assert.equal(res.status, status, JSON.stringify(res.body).slice(0, 300));
  assert.equal(typeof res.body.error?.message, 'string', 'the API error format');
  if (code) assert.equal(res.body.error.code, code);
};

let shop: AgentFixture;
let other: AgentFixture;
let seeded: Promise<void> | undefined;
/** Two accounts with an agent each, seeded once for the file. */
const seed = () => (seeded ??= Promise.all([seedAgent(ctx.stack), seedAgent(ctx.stack)]).then(([a, b]) => {
  [shop, other] = [a, b];
}));

describe('notes and saved replies: limits', () => {
  it('refuses a note over 5,000 characters, a body over the JSON limit, and the note past the per-conversation cap: nothing is added', async () => {
    await seed();
    const cnv = await openConversation(shop, { customer: { name: 'Kim' } });
    errorOf(await shop.call('POST', `/v1/conversations/${cnv}/notes`, { body: 'x'.repeat(5001) }), 400);
    const huge = await shop.call('POST', `/v1/conversations/${cnv}/notes`, { body: 'x'.repeat(3_000_000) });
    assert.ok(huge.status === 413 || huge.status === 400, String(huge.status));
    assert.equal(typeof huge.body.error?.code, 'string');
    const console = await signInToConsole(ctx.stack.baseUrl, shop.apiKey);
    const form = await console.post(`/console/inbox/${cnv}/notes`, { body: 'y'.repeat(5001) });
    assert.ok(form.status >= 400 && form.status < 500, `the console form refuses it too (${form.status})`);
    assert.equal((await shop.call('GET', `/v1/conversations/${cnv}`)).body.notes.length, 0);

    // The notes before the cap, written at once (as the service would write them).
    await ctx.stack.database.db.insertInto('conversation_notes').values(Array.from({ length: MAX_NOTES_PER_CONVERSATION - 1 }, (_, i) => ({
      id: newId(IdPrefix.note), account_id: shop.accountId, livemode: false, conversation_id: cnv, author_key_id: null, author_name: 'seed', body: `note ${i}`, created_at: new Date(Date.now() - 60_000 + i),
    }))).execute();
    assert.equal((await shop.call('POST', `/v1/conversations/${cnv}/notes`, { body: 'the last one shown' })).status, 201);
    errorOf(await shop.call('POST', `/v1/conversations/${cnv}/notes`, { body: 'one too many: kept but never listed before' }), 422, 'parameter_unprocessable');
    const notes = (await shop.call('GET', `/v1/conversations/${cnv}`)).body.notes;
    assert.equal(notes.length, MAX_NOTES_PER_CONVERSATION);
    assert.equal(notes.at(-1).body, 'the last one shown', 'every kept note is listed');
  });

  it('keeps the caps under a burst: concurrent creates one short of the cap add exactly one saved reply, one note', async () => {
    const f = await seedAgent(ctx.stack);
    const now = Date.now();
    await ctx.stack.database.db.insertInto('saved_replies').values(Array.from({ length: MAX_SAVED_REPLIES - 1 }, (_, i) => ({
      id: newId(IdPrefix.savedReply), account_id: f.accountId, livemode: false, name: `seed ${i}`, content: 'Hello', updated_at: new Date(now),
    }))).execute();
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => f.call('POST', '/v1/saved_replies', { name: `burst ${i}`, content: 'Hi' })));
    assert.deepEqual(replies.map((r) => r.status).sort(), [201, ...Array(11).fill(422)], 'one created, the rest refused');
    const [{ n }] = await ctx.stack.database.db.selectFrom('saved_replies').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', f.accountId).execute();
    assert.equal(Number(n), MAX_SAVED_REPLIES);

    const cnv = await openConversation(f);
    await ctx.stack.database.db.insertInto('conversation_notes').values(Array.from({ length: MAX_NOTES_PER_CONVERSATION - 1 }, (_, i) => ({
      id: newId(IdPrefix.note), account_id: f.accountId, livemode: false, conversation_id: cnv, author_key_id: null, author_name: 'seed', body: `note ${i}`, created_at: new Date(now - 60_000 + i),
    }))).execute();
    const notes = await Promise.all(Array.from({ length: 12 }, (_, i) => f.call('POST', `/v1/conversations/${cnv}/notes`, { body: `burst ${i}` })));
    assert.deepEqual(notes.map((r) => r.status).sort(), [201, ...Array(11).fill(422)]);
    assert.equal((await f.call('GET', `/v1/conversations/${cnv}`)).body.notes.length, MAX_NOTES_PER_CONVERSATION);
  });

  it('refuses saved-reply content over 5,000 characters or with unknown variables, over the API and the console form', async () => {
    await seed();
    errorOf(await shop.call('POST', '/v1/saved_replies', { name: 'Long', content: 'x'.repeat(5001) }), 400);
    errorOf(await shop.call('POST', '/v1/saved_replies', { name: 'Env', content: 'Hi {{process.env.SECRET}}' }), 422);
    errorOf(await shop.call('POST', '/v1/saved_replies', { name: 'Proto', content: 'Hi {{constructor}}' }), 422);
    const console = await signInToConsole(ctx.stack.baseUrl, shop.apiKey);
    const form = await console.post('/console/inbox/saved-replies', { name: 'Long', content: 'x'.repeat(5001) });
    assert.equal(form.status, 422);
    assert.equal((await shop.call('GET', '/v1/saved_replies')).body.data.length, 0);
  });

  it("fills a saved reply's variables once: a customer's name written as a template stays text", async () => {
    await seed();
    const cnv = await openConversation(shop, { customer: { name: '{{conversation.id}} {{agent.name}} $&' } });
    const reply = await shop.call('POST', '/v1/saved_replies', { name: 'Greeting', content: 'Hi {{customer.name}}, {{agent.name|we}} here.' });
    assert.equal(reply.status, 201);
    const console = await signInToConsole(ctx.stack.baseUrl, shop.apiKey);
    const rendered = await console.get(`/console/inbox/${cnv}/saved-replies/${reply.body.id}`);
    assert.equal(rendered.status, 200);
    assert.equal(JSON.parse(rendered.text).content, 'Hi {{conversation.id}} {{agent.name}} $&, Support team here.');
  });
});

describe('inbox search', () => {
  it('answers tsquery operators, unicode and very long strings with a page (never a 500), and still finds the words', async () => {
    await seed();
    const cnv = await openConversation(shop, { customer: { name: 'Searcher' } });
    await shop.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Die Lieferung für Müller ist unterwegs: Zebrawood 42' });
    const console = await signInToConsole(ctx.stack.baseUrl, shop.apiKey);
    const hostile = [
      "zebrawood & | ! ( ) ' :* <-> <2> \\ müller",
      `${'a:* & '.repeat(500)}zebrawood`,
      'Lieferung '.repeat(700),
      '\u0000 zebra\u0301wood 🙂 ½ ² ǅ ﷺ',
      `${'x'.repeat(3000)} zebrawood`,
      "'''''''' !!!!!!!! (((((((",
    ];
    // Also bytes that are not UTF-8 (a lone surrogate's encoding, 0xFF, NUL), as a client may send them.
    for (const q of [...hostile.map(encodeURIComponent), '%ED%A0%80%FF%00zebrawood', '%E0%A4%A']) {
      const res = await console.get(`/console/inbox?tab=all&q=${q}`);
      // A NUL anywhere in a URL is refused up front with a clear 400; everything else is a page.
      const refusedNul = res.status === 400 && /may not contain NUL/.test(res.text);
      assert.ok(res.status === 200 || refusedNul, `q=${q.slice(0, 40)}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    const found = await console.get(`/console/inbox?tab=all&q=${encodeURIComponent('MÜLLER & zebra | !(')}`);
    assert.match(found.text, new RegExp(`data-conversation="${cnv}"`));
  });
});

describe('feedback', () => {
  it('keeps one vote per conversation (and per answer), which a new vote changes; a flood keeps one row', async () => {
    await seed();
    const cnv = await openConversation(shop);
    const votes = await Promise.all(Array.from({ length: 40 }, (_, i) => shop.call('POST', `/v1/conversations/${cnv}/feedback`, { rating: i % 2 ? 'up' : 'down' })));
    assert.ok(votes.every((v) => v.status === 201), JSON.stringify(votes.map((v) => v.status)));
    const last = await shop.call('POST', `/v1/conversations/${cnv}/feedback`, { rating: 'up' });
    assert.equal(last.status, 201);
    assert.equal(last.body.rating, 'up');
    assert.equal(new Set([...votes.map((v) => v.body.id), last.body.id]).size, 1, 'the same vote, changed');
    const rows = await ctx.stack.database.db.selectFrom('conversation_feedback').select(['rating']).where('conversation_id', '=', cnv).execute();
    assert.deepEqual(rows, [{ rating: 'up' }]);
  });
});

describe('invites', () => {
  it("never emails an invite from a test key's console; a live key's console emails it", async () => {
    await seed();
    const test = await signInToConsole(ctx.stack.baseUrl, shop.apiKey);
    const invited = await test.post('/console/team/invites', { email: 'victim@example.com', role: 'viewer' });
    assert.equal(invited.status, 200, invited.text.slice(0, 300));
    assert.match(invited.text, /Signed in with a test key: invites are not emailed/);
    assert.match(invited.text, /data-secret>http/, 'the link is shown to copy');

    const live = await ctx.stack.newAccount('Live shop', 'live');
    const liveConsole = await signInToConsole(ctx.stack.baseUrl, live.apiKey);
    const emailed = await liveConsole.post('/console/team/invites', { email: 'colleague@example.com', role: 'viewer' });
    assert.equal(emailed.status, 200);
    assert.match(emailed.text, /It was emailed to them too/);
    assert.deepEqual(recipients, ['colleague@example.com'], 'only the live invite reached the relay');
  });

  it('refuses an invite past the open-invite cap with a clear message on the Team page, adding none', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Invite flood');
    const expires = new Date(Date.now() + 86_400_000);
    await ctx.stack.database.db.insertInto('console_invites').values(Array.from({ length: MAX_OPEN_INVITES }, (_, i) => ({
      id: newId(IdPrefix.invite), account_id: accountId, email: `flood${i}@example.com`, role: 'viewer' as const, token_hash: `hash-${accountId}-${i}`, invited_by: null, expires_at: expires,
    }))).execute();
    const console = await signInToConsole(ctx.stack.baseUrl, apiKey);
    const refused = await console.post('/console/team/invites', { email: 'one-more@example.com', role: 'viewer' });
    assert.equal(refused.status, 422);
    assert.match(refused.text, new RegExp(`at most ${MAX_OPEN_INVITES} open invites: revoke some first`));
    const team = await ctx.stack.services.teammates.listTeam({ accountId });
    assert.equal(team.invites.length, MAX_OPEN_INVITES);
    assert.ok(!team.invites.some((i) => i.email === 'one-more@example.com'));
  });
});

describe("another account's ids", () => {
  it('answers 404 on every new route, changing nothing', async () => {
    await seed();
    const cnv = await openConversation(shop);
    const reply = (await shop.call('POST', '/v1/saved_replies', { name: 'Mine', content: 'Hello' })).body;
    const key = (await shop.call('POST', '/v1/publishable_keys', { agent_id: shop.agentId, allowed_origins: ['https://shop.example'] })).body;
    assert.ok(reply.id && key.id);
    const calls: Array<[string, string, unknown?]> = [
      ['POST', `/v1/conversations/${cnv}/notes`, { body: 'peek' }],
      ['POST', `/v1/conversations/${cnv}/feedback`, { rating: 'down' }],
      ['GET', `/v1/conversations/${cnv}`],
      ['GET', `/v1/saved_replies/${reply.id}`],
      ['POST', `/v1/saved_replies/${reply.id}`, { content: 'changed' }],
      ['DELETE', `/v1/saved_replies/${reply.id}`],
      ['GET', `/v1/analytics/agents/${shop.agentId}`],
      ['GET', `/v1/analytics/knowledge_gaps?agent_id=${shop.agentId}`],
      ['GET', `/v1/publishable_keys/${key.id}`],
      ['POST', `/v1/publishable_keys/${key.id}`, { allowed_origins: ['https://evil.example'] }],
      ['POST', `/v1/publishable_keys/${key.id}/revoke`],
      ['GET', `/v1/agents/${shop.agentId}/widget_settings`],
      ['POST', `/v1/agents/${shop.agentId}/widget_settings`, { greeting: 'hacked' }],
    ];
    for (const [method, path, body] of calls) errorOf(await other.call(method, path, body), 404, 'resource_missing');
    assert.ok(!(await other.call('GET', '/v1/saved_replies')).body.data.some((r: any) => r.id === reply.id));

    // The console: the other account's session, signed in with its key, then as an owner of its own.
    const intruder = await signInToConsole(ctx.stack.baseUrl, other.apiKey);
    const shopOwner = await ctx.stack.services.consoleSessions.createUser({ accountId: shop.accountId, email: `owner.${Date.now()}@shop.test`, password: 'correct horse battery', role: 'owner' });
    const invite = await ctx.stack.services.teammates.invite({ accountId: shop.accountId, actor: { role: 'owner', userId: null }, email: `invitee.${Date.now()}@shop.test`, role: 'agent', sandbox: true });
    const consoleCalls: Array<[string, Record<string, string>?]> = [
      [`/console/inbox/${cnv}/notes`, { body: 'peek' }],
      [`/console/inbox/saved-replies/${reply.id}/delete`],
      [`/console/inbox/${cnv}/claim`],
      [`/console/team/${shopOwner.id}/role`, { role: 'viewer' }],
      [`/console/team/${shopOwner.id}/disable`],
      [`/console/team/${shopOwner.id}/remove`],
      [`/console/team/invites/${invite.id}/revoke`],
    ];
    for (const [path, form] of consoleCalls) {
      const res = await intruder.post(path, form ?? {});
      assert.ok(res.status === 404 || res.status === 422, `${path}: ${res.status}`);
    }
    assert.equal((await intruder.get(`/console/inbox/${cnv}/saved-replies/${reply.id}`)).status, 404);
    const ownSession = await consoleSession(ctx.stack.baseUrl, (await consoleRequest(ctx.stack.baseUrl, '/console/sign-in', { form: { email: shopOwner.email, password: 'correct horse battery' }, headers: { origin: ctx.stack.baseUrl } })).cookie!);
    const otherCnv = await openConversation(other);
    assert.equal((await ownSession.post(`/console/inbox/${otherCnv}/assign`, { user_id: shopOwner.id })).status, 404);
    const theirs = await openConversation(shop);
    const assignForeign = await ownSession.post(`/console/inbox/${theirs}/assign`, { user_id: (await ctx.stack.services.consoleSessions.createUser({ accountId: other.accountId, email: `o.${Date.now()}@other.test`, password: 'correct horse battery' })).id });
    assert.ok(assignForeign.status === 404 || assignForeign.status === 422, `assigning another account's user: ${assignForeign.status}`);

    // Nothing changed.
    assert.equal((await shop.call('GET', `/v1/conversations/${cnv}`)).body.notes.length, 0);
    assert.equal((await shop.call('GET', `/v1/saved_replies/${reply.id}`)).body.content, 'Hello');
    assert.equal((await shop.call('GET', `/v1/publishable_keys/${key.id}`)).body.revoked_at ?? null, null);
    assert.deepEqual((await shop.call('GET', `/v1/publishable_keys/${key.id}`)).body.allowed_origins, ['https://shop.example']);
    assert.equal((await ctx.stack.database.db.selectFrom('conversation_feedback').select('id').where('conversation_id', '=', cnv).execute()).length, 0);
    assert.equal((await ctx.stack.database.db.selectFrom('console_users').select('disabled_at').where('id', '=', shopOwner.id).executeTakeFirstOrThrow()).disabled_at, null);
    const team = await ctx.stack.services.teammates.listTeam({ accountId: shop.accountId });
    assert.ok(team.invites.some((i) => i.id === invite.id), 'the invite is still open');
    assert.ok(team.teammates.some((t) => t.id === shopOwner.id && t.role === 'owner'));
  });
});
