import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Role } from '../../src/domain/roles';
import { consoleRequest, consoleSession, signInToConsole } from '../support/console';
import { useTestStack } from '../support/stack';

/**
 * Settings that were API/YAML-only, now in the console: an agent's resolution question (issue 34), the
 * account's SMS reply signature (issue 33, owners and admins), and teammates named by their display name in
 * the inbox list and on notes.
 */
const ctx = useTestStack({ label: __filename, worker: false });
const PASSWORD = 'correct horse battery';

async function teammate(accountId: string, role: Role, displayName?: string) {
  const email = `${role}-${Math.random().toString(36).slice(2)}@shop.test`;
  const user = await ctx.stack.services.consoleSessions.createUser({ accountId, email, password: PASSWORD, role, displayName });
  const res = await consoleRequest(ctx.stack.baseUrl, '/console/sign-in', { form: { email, password: PASSWORD }, headers: { origin: ctx.stack.baseUrl } });
  assert.equal(res.status, 303, res.text);
  return { id: user.id, email, session: await consoleSession(ctx.stack.baseUrl, res.cookie!) };
}

/** The agent editor's fields as the page renders them (text inputs, checked boxes, textareas, selected options). */
function formOf(page: string): Record<string, string> {
  const out: Record<string, string> = {};
  const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  for (const m of page.matchAll(/<input ([^>]*)>/g)) {
    const attrs = m[1]!;
    const name = /name="([^"]+)"/.exec(attrs)?.[1];
    if (!name || name === '_csrf' || name === 'kb' || /type="checkbox"/.test(attrs)) continue;
    out[name] = unescape(/value="([^"]*)"/.exec(attrs)?.[1] ?? '');
  }
  for (const m of page.matchAll(/<input type="checkbox" name="([^"]+)" value="([^"]+)" checked/g)) if (m[1] !== 'channels') out[m[1]!] = m[2]!;
  for (const m of page.matchAll(/<textarea name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) out[m[1]!] = unescape(m[2]!);
  for (const m of page.matchAll(/<select name="([^"]+)">[\s\S]*?<option value="([^"]+)" selected/g)) out[m[1]!] = m[2]!;
  return out;
}

describe('console: settings that were API-only', () => {
  it("the agent editor sets the resolution question: the box, one line per locale, the defaults as placeholders, other locales kept", async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Question shop');
    const scope = { accountId, livemode: false };
    const { agents } = ctx.stack.services;
    const agent = await agents.createAgent({ ...scope, config: { name: 'Support', channels: ['sms'], resolution_question: { enabled: false, text: { it: 'Risolto? Rispondi SÌ.' } } } });
    const s = await signInToConsole(ctx.stack.baseUrl, apiKey);

    const page = (await s.get(`/console/agents/${agent.id}`)).text;
    assert.match(page, /<input type="checkbox" name="resolution_question" value="1" >/, 'off, as configured');
    assert.match(page, /name="resolution_question_text\.de" value="" placeholder="Hat das Ihre Frage beantwortet\? Antworten Sie mit JA, wenn ja\."/);
    const form = formOf(page);
    assert.equal(form['resolution_question_text.other'], '{"it":"Risolto? Rispondi SÌ."}');

    const saved = await s.post(`/console/agents/${agent.id}`, { ...form, channels: 'sms', resolution_question: '1', 'resolution_question_text.fr': '  Réglé ? Répondez OUI.  ', 'resolution_question_text.en': '' });
    assert.equal(saved.status, 303, saved.text.slice(0, 500));
    const { draft } = await agents.getDraft({ ...scope, agentId: agent.id });
    assert.deepEqual(draft.resolution_question, { enabled: true, text: { it: 'Risolto? Rispondi SÌ.', fr: 'Réglé ? Répondez OUI.' } });
    const again = (await s.get(`/console/agents/${agent.id}`)).text;
    assert.match(again, /<input type="checkbox" name="resolution_question" value="1" checked>/);
    assert.match(again, /name="resolution_question_text\.fr" value="Réglé \? Répondez OUI\."/);

    // A text of two lines is refused next to its field, and the draft stays as it was.
    const bad = await s.post(`/console/agents/${agent.id}`, { ...formOf(again), channels: 'sms', resolution_question: '1', 'resolution_question_text.es': 'x'.repeat(161) });
    assert.equal(bad.status, 422, bad.text.slice(0, 300));
    assert.match(bad.text, /data-field="resolution_question_text\.es"/);
    assert.deepEqual((await agents.getDraft({ ...scope, agentId: agent.id })).draft.resolution_question, draft.resolution_question);
  });

  it("owners and admins turn the SMS reply signature on and off on the Numbers page; an agent-role teammate cannot", async () => {
    const { accountId } = await ctx.stack.newAccount('Signature shop');
    const admin = await teammate(accountId, 'admin');
    const agentRole = await teammate(accountId, 'agent');
    const { accounts } = ctx.stack.services;

    const page = (await admin.session.get('/console/numbers')).text;
    assert.match(page, /<input type="checkbox" name="sign_sms_replies" value="1"  >/, 'off by default, and changeable');
    const on = await admin.session.post('/console/numbers/sign-replies', { sign_sms_replies: '1' });
    assert.equal(on.status, 303, on.text.slice(0, 300));
    assert.equal((await accounts.getAccount({ accountId })).sign_sms_replies, true);
    assert.match((await admin.session.get(on.headers.get('location')!)).text, /signed with the teammate&#39;s display name now/);

    const seen = (await agentRole.session.get('/console/numbers')).text;
    assert.match(seen, /name="sign_sms_replies" value="1" checked disabled>/, 'an agent sees the setting, greyed');
    const refused = await agentRole.session.post('/console/numbers/sign-replies', {});
    assert.equal(refused.status, 403);
    assert.equal((await accounts.getAccount({ accountId })).sign_sms_replies, true, 'nothing changed');

    const off = await admin.session.post('/console/numbers/sign-replies', {});
    assert.equal(off.headers.get('location'), '/console/numbers?done=unsigned');
    assert.equal((await accounts.getAccount({ accountId })).sign_sms_replies, false);
  });

  it("the inbox list's assignee and a note's author are the teammate's display name, else their email", async () => {
    const { accountId } = await ctx.stack.newAccount('Names shop');
    const scope = { accountId, livemode: false };
    const { agents, conversations, inbox } = ctx.stack.services;
    const agent = await agents.createAgent({ ...scope, config: { name: 'Support', channels: ['chat'] } });
    await agents.publishAgent({ ...scope, agentId: agent.id });
    const dana = await teammate(accountId, 'agent', 'Dana Scully');
    const plain = await teammate(accountId, 'agent');
    const named = await conversations.createConversation({ ...scope, agent_id: agent.id, customer: { name: 'Ada' } });
    const unnamed = await conversations.createConversation({ ...scope, agent_id: agent.id, customer: { name: 'Bo' } });
    await inbox.assign({ ...scope, conversationId: named.id, userId: dana.id });
    await inbox.assign({ ...scope, conversationId: unnamed.id, userId: plain.id });

    const list = (await plain.session.get('/console/inbox')).text;
    assert.match(list, new RegExp(`data-conversation="${named.id}"[\\s\\S]*?<td data-assignee>Dana Scully</td>`));
    assert.match(list, new RegExp(`data-conversation="${unnamed.id}"[\\s\\S]*?<td data-assignee>${plain.email.replace(/\./g, '\\.')}</td>`));
    assert.doesNotMatch(list, new RegExp(dana.email.replace(/\./g, '\\.')));

    assert.equal((await dana.session.post(`/console/inbox/${named.id}/notes`, { body: 'VIP' })).status, 303);
    assert.equal((await plain.session.post(`/console/inbox/${named.id}/notes`, { body: 'noted' })).status, 303);
    const panel = (await plain.session.get(`/console/inbox/${named.id}`)).text;
    const authors = [...panel.matchAll(/<div class="muted" data-note-author>([^·]+) ·/g)].map((m) => m[1]!.trim());
    assert.deepEqual(authors.sort(), ['Dana Scully', plain.email].sort());
    assert.match(panel, /<p data-assignee-name>Dana Scully<\/p>/);
  });
});
