import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import * as cheerio from 'cheerio';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import type { Config } from '../../src/config/env';
import { ask, HELP_CENTER, openConversation, seedAgent } from '../support/agents';
import { signInToConsole } from '../support/console';
import { pollUntil } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { SENSITIVE, valuesInClear } from '../../src/privacy/redaction-corpus';
import { useTestStack } from '../support/stack';
import { waitForSource } from './knowledge-helpers';

/**
 * M4: the redaction corpus (cards with every separator, Unicode spaces and zero-width characters, IBANs,
 * national ids) goes in through every door a customer or a source has (chat messages, conversation
 * metadata and context, an inbound email, an SMS conversation, a knowledge passage, an api source's
 * answer), and no value of it may come out in clear at any sink: the database (transcripts, runs with
 * their retrieval snippets, events, SMS, email), webhook payloads, logs, Temporal history, SMS and email
 * replies, API responses, and the console pages a support agent opens (inbox, handoff queue, conversations
 * with their run panels, run panels and event streams). The knowledge tables are the one exception: they hold the business's own
 * documents as indexed (the passage is redacted when a run stores or sends it).
 */
const INBOUND_SECRET = `whsec_${randomBytes(18).toString('base64url')}`;
const mails: string[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    simpleParser(stream)
      .then((mail) => {
        mails.push(`${mail.subject}\n${mail.text ?? ''}\n${String(mail.html ?? '')}`);
        callback();
      })
      .catch(callback);
  },
});
const email: Config['email'] = {
  smtp: { host: '127.0.0.1', port: 0, secure: false, timeoutMs: 5000 },
  from: 'agent@converse.test',
  messageIdDomain: 'converse.test',
  inboundSecret: INBOUND_SECRET,
  inboundMaxBytes: 1_000_000,
  trackOpens: false,
  trackClicks: false,
  dnsServers: [],
  dnsTimeoutMs: 2000,
  returnPathDomain: 'converse.test',
};
before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  email.smtp!.port = (smtp.server.address() as AddressInfo).port;
});
after(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

let logged = '';
const log = pino({ level: 'trace' }, new Writable({ write(chunk, _enc, cb) { logged += chunk.toString(); cb(); } }));
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', log, config: { email } });

/** Every string inside `value`, object keys included, JSON text inside strings parsed too (columns that store JSON as text). */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    out.push(value);
    if (/^\s*[[{"]/.test(value)) {
      try {
        stringsOf(JSON.parse(value), out);
      } catch {
        // not JSON: kept as the string it is
      }
    }
  } else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') {
    // Keys are text too (metadata, tool results): a card as a key leaks like a card as a value.
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      stringsOf(v, out);
    }
  }
  return out;
}

/** The corpus values readable in clear in any string of `value`. */
const leaks = (value: unknown) => [...new Set(stringsOf(value).flatMap((s) => valuesInClear(s)))];

/**
 * What a support agent reads on a console page: its text (tags stripped, entities decoded, so a value split
 * by markup is whole again) and every attribute value (links, data attributes, form values).
 */
function pageStrings(page: string): string[] {
  const $ = cheerio.load(page);
  const attributes = $('*').toArray().flatMap((el) => Object.values((el as { attribs?: Record<string, string> }).attribs ?? {}));
  return [$.root().text(), ...attributes];
}

/** A signed-in console session (the sign-in form with the account's secret key) that GETs console pages through the app. */
async function consoleSession(apiKey: string) {
  const session = await signInToConsole(ctx.stack.baseUrl, apiKey);
  return async (pathname: string) => {
    const res = await session.get(pathname);
    assert.equal(res.status, 200, `${pathname}: ${res.text.slice(0, 500)}`);
    return res.text;
  };
}

const CARD_PASSAGE = 'Test orders are paid with the card on file 4242.4242.4242.4242 and refunds for test orders go to IBAN de89-3704-0044-0532-0130-00.';
const API_ANSWER = 'The backup card for test orders is 5555\u00a05555\u200b5555\u00a04444 (valid until 12/27).';
const QUESTION = 'Which card is on file for test orders, and where do refunds for test orders go?';

/** The corpus texts as customer messages under the API's 20,000-character cap. */
function corpusMessages(): string[] {
  const out: string[] = [];
  let current = '';
  for (const e of SENSITIVE) {
    if (current.length + e.text.length + 1 > 8000) {
      out.push(current);
      current = '';
    }
    current += `${e.text}\n`;
  }
  if (current) out.push(current);
  return out;
}

describe('redaction at every sink (M4)', () => {
  it('lets no card, IBAN or national id of the corpus reach a stored transcript, a run record, an event, a webhook, metadata, a log line, the Temporal history, a console page, an SMS or an email', async () => {
    const api = await startReceiver((req) => {
      const body = JSON.parse(req.rawBody.toString() || '{}');
      if (body.probe) return { status: 200, body: { results: [] } };
      return { status: 200, body: { results: [{ title: 'Backup card 6011 1111 1111 1117', content: API_ANSWER, url: 'https://shop.example.com/cards' }] } };
    });
    const hooks = await startReceiver();
    // A tool whose error message and a tool whose result quote a card.
    const tool = await startReceiver((req) => {
      const body = JSON.parse(req.rawBody.toString() || '{}');
      if (body.tool === 'lookup_order') return { status: 200, body: { error: { code: 'card_declined', message: 'The card 4111/1111/1111/1111 on order 12345 was declined' } } };
      // Issue 28 #6: a card as a key, and values split by the separators and invisible characters the rule now covers.
      return {
        status: 200,
        body: { order_id: '12345', paid_with: '3782\u00a0822463\u00a010005', status: 'shipped', '4242\u034f4242\u034f4242\u034f4242': 'card on file', refund_to: 'DE89/3704/0044/0532/0130/00', backup: '5555*5555*5555*4444' },
      };
    });
    try {
      const tools = ['lookup_order', 'track_parcel'].map((name) => ({
        name,
        description: name === 'lookup_order' ? 'Look up the status of an order by its order number' : 'Track the parcel of a shipment by its parcel number',
        parameters: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['id'] },
        endpoint: `${tool.url}/${name}`,
        timeout_ms: 10_000,
        idempotent: true,
      }));
      const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms', 'email'], tools }, [...HELP_CENTER, { title: 'Test order payments', content: CARD_PASSAGE, url: 'https://help.example.com/test-orders' }]);
      const src = await f.call('POST', `/v1/knowledge_bases/${f.knowledgeBaseId}/sources`, { type: 'api', url: `${api.url}/search`, timeout_ms: 5000 });
      assert.equal(src.status, 202, JSON.stringify(src.body));
      await waitForSource(f.call, f.knowledgeBaseId, src.body.id, 'ready');
      assert.equal((await f.call('POST', '/v1/webhook_endpoints', { url: `${hooks.url}/hooks`, events: ['*'] })).status, 201);

      // Chat: metadata and context carry corpus values; the question retrieves the card passage and the api answer.
      // Issue 28 #6: corpus values as metadata and context keys too (at most 50 metadata keys of 40 characters).
      const sensitiveKeys = ['4242\u31644242\u31644242\u31644242', '4242,4242,4242,4242', 'ssn 219.09.9999', 'AB-12-34-56-C', '4242 -- 4242 -- 4242 -- 4242', 'DE89/3704/0044/0532/0130/00'];
      const metadata = { ...Object.fromEntries(SENSITIVE.slice(0, 40).map((e, i) => [`k${i}`, e.text])), ...Object.fromEntries(sensitiveKeys.map((k) => [k, 'as a key'])) };
      const context = { notes: SENSITIVE.slice(40, 80).map((e) => e.text), ...Object.fromEntries(sensitiveKeys.map((k) => [k, { nested: 'as a key' }])) };
      const chat = await openConversation(f, { metadata, context });
      const answered = await ask(f, chat, QUESTION);
      assert.equal(answered.run.status, 'completed', JSON.stringify(answered.run));
      // Tools: one answers with a card in its result, one fails with a card in its error message.
      const parcel = await ask(f, await openConversation(f), 'Track the parcel of my shipment 54321 please');
      const lookedUp = await ask(f, await openConversation(f), 'What is the status of my order 12345?');
      assert.deepEqual([parcel.run?.tool_calls?.[0]?.result_status, lookedUp.run?.tool_calls?.[0]?.result_status], ['ok', 'error'], JSON.stringify([parcel, lookedUp]));
      for (const text of corpusMessages()) await ask(f, chat, text);

      // SMS: the same question in an SMS conversation (test mode: the sandbox carrier takes the reply).
      const pn = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: f.accountId, livemode: false, number: '+447400999001' });
      await ctx.stack.services.phoneNumbers.attachAgent({ accountId: f.accountId, livemode: false, phoneNumberId: pn.id, agentId: f.agentId });
      const sms = await openConversation(f, { channel: 'sms', customer: { phone: '+447400123456' } });
      const smsAnswer = await ask(f, sms, QUESTION);
      assert.equal(smsAnswer.run.status, 'completed', JSON.stringify(smsAnswer.run));

      // Email: one inbound email holds corpus values (stored redacted; a long mixed message is handed off),
      // another asks the question, whose reply quotes the customer and the card passage.
      await ctx.stack.services.emailAddresses.addAddress({ accountId: f.accountId, livemode: false, address: 'support@acme.test', displayName: 'Acme', agentId: f.agentId });
      const inboundEmail = async (from: string, id: string, body: string) => {
        // The subject is stored and repeated in the reply's "Re:": issue 28 #6's separators and invisible characters in it.
        const subject = 'Card 4242\u00a04242\u00a04242\u00a04242, backup 5555\u31645555\u31645555\u31644444, SSN 078\u201305\u20131120';
        const raw = [`From: Ada <${from}>`, 'To: support@acme.test', `Subject: ${subject}`, `Message-ID: <${id}>`, 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', '', body, ''].join('\r\n');
        // Test mode: the test helper takes the email as the relay's post is, and the sandbox takes the reply.
        const res = await f.call('POST', '/v1/test_helpers/inbound_emails', { raw });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      };
      await inboundEmail('ada@customer.test', 'm1@customer.test', SENSITIVE.slice(80, 160).map((e) => e.text).join('\n'));
      await inboundEmail('bob@customer.test', 'm2@customer.test', `${QUESTION}\nMy card is 4242\u00a04242\u200b4242 4242.`);
      const sandboxed = await pollUntil('the email reply', async () => {
        const list = (await f.call('GET', '/v1/emails?direction=outbound')).body.data as { id: string; status: string }[];
        return list.length > 0 && list.every((e) => e.status !== 'sending') && list;
      });
      for (const e of sandboxed) {
        const { subject, content } = (await f.call('GET', `/v1/emails/${e.id}`)).body;
        mails.push(`${subject}\n${content?.text ?? ''}\n${content?.html ?? ''}`);
      }
      const replySubject = mails[0]!.split('\n')[0]!;
      assert.equal(replySubject, 'Re: Card [card ••••4242], backup [card ••••4444], SSN [redacted ssn]', 'the reply repeats the subject as stored: redacted');
      await pollUntil('the run.completed webhooks', () => hooks.requests.filter((r) => r.rawBody.toString().includes('"run.completed"')).length >= 3, { timeoutMs: 20_000 });

      // The card passage and the api answer were retrieved (so the run record had something to redact).
      const run = (await f.call('GET', `/v1/runs/${answered.run.id}`)).body;
      const snippets = JSON.stringify(run.retrieval);
      assert.match(snippets, /\[card ••••4242\]/, snippets);
      assert.match(snippets, /\[card ••••4444\]/, snippets);
      assert.match(snippets, /\[redacted iban\]/, snippets);
      const conversation = (await f.call('GET', `/v1/conversations/${chat}`)).body;
      assert.match(conversation.metadata.k0, /\[card ••••\d{4}\]/);

      const found: Record<string, string[]> = {};
      const note = (sink: string, value: unknown) => {
        const l = leaks(value);
        if (l.length > 0) found[sink] = [...(found[sink] ?? []), ...l];
      };
      const { schema, db } = ctx.stack.database;
      const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = ${schema} and table_type = 'BASE TABLE'`.execute(db);
      const knowledge = tables.rows.map((t) => t.table_name).filter((t) => /^knowledge_(files|sources|records|passages|terms|embeddings)$/.test(t));
      assert.equal(knowledge.length, 6, 'the knowledge document tables exist (the business own content, a record per row)');
      for (const { table_name } of tables.rows) {
        if (knowledge.includes(table_name)) continue;
        const { rows } = await sql<{ row: unknown }>`select to_jsonb(t) as row from ${sql.table(table_name)} t`.execute(db);
        note(`table ${table_name}`, rows.map((r) => r.row));
      }
      note('API: run', run);
      note('API: conversation', conversation);
      note('API: transcript', (await f.call('GET', `/v1/conversations/${chat}/messages?limit=100`)).body);
      note('API: events', (await f.call('GET', '/v1/events?limit=100')).body);
      const outboundSms = await pollUntil('the SMS reply', async () => {
        const list = (await f.call('GET', '/v1/messages')).body.data as { direction: string; body: string }[];
        return list.some((m) => m.direction === 'outbound') && list;
      });
      assert.match(JSON.stringify(outboundSms), /\[card \S+4242\]/, 'the SMS reply quotes the redacted card passage');
      note('SMS replies', outboundSms);
      note('email replies', mails);
      note('webhook payloads', hooks.requests.map((r) => JSON.parse(r.rawBody.toString())));
      assert.ok(logged.length > 0, 'the service logged something');
      note('logs', logged.split('\n').filter(Boolean).map((l) => JSON.parse(l)));
      let histories = 0;
      for await (const wf of ctx.env.client.workflow.list()) {
        const history = await ctx.env.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
        histories++;
        note(`Temporal history of ${wf.type}`, JSON.parse(JSON.stringify(history, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v))));
      }
      assert.ok(histories >= 3, 'the runs\' histories were read');

      // Console pages a support agent opens for these conversations, fetched through the app with a signed-in
      // session: the inbox, the handoff queue, each conversation (transcript, run panels with retrieval
      // snippets, tool calls, handoff summary), and each run's panel and event stream.
      const consolePage = await consoleSession(f.apiKey);
      const pages = new Map<string, string>();
      const open = async (pathname: string) => {
        const page = await consolePage(pathname);
        pages.set(pathname, page);
        note(`console page ${pathname}`, pageStrings(page));
        return page;
      };
      const conversations = (await f.call('GET', '/v1/conversations?limit=100')).body.data as { id: string; status: string }[];
      assert.ok(conversations.length >= 6, JSON.stringify(conversations));
      const inbox = await open('/console/inbox');
      for (const c of conversations) assert.ok(inbox.includes(c.id), `the inbox lists ${c.id}`);
      const handedOff = conversations.filter((c) => c.status === 'handed_off');
      assert.ok(handedOff.length > 0, 'a conversation was handed off (the handoff queue has something to show)');
      const queue = await open('/console/inbox?status=handed_off');
      for (const c of handedOff) assert.ok(queue.includes(c.id), `the handoff queue lists ${c.id}`);
      for (const channel of ['chat', 'sms', 'email']) await open(`/console/inbox?channel=${channel}`);
      for (const c of conversations) await open(`/console/inbox/${c.id}`);
      for (const c of handedOff) assert.match(pages.get(`/console/inbox/${c.id}`)!, /class="handoff-box"/, `the handoff summary of ${c.id} is on its page`);
      const runIds = (await sql<{ id: string }>`select id from runs`.execute(db)).rows.map((r) => r.id);
      assert.ok(runIds.length >= 6, 'runs to open');
      for (const id of runIds) {
        await open(`/console/runs/${id}/panel`);
        const run = (await f.call('GET', `/v1/runs/${id}`)).body as { status: string };
        // The event stream ends at run.completed; a run still waiting would keep it open.
        if (!['queued', 'in_progress', 'requires_action'].includes(run.status)) note(`console run events ${id}`, await consolePage(`/console/runs/${id}/events`));
      }
      // The pages show the placeholders where the values were (so nothing passes for want of content).
      const chatPage = pages.get(`/console/inbox/${chat}`)!;
      assert.match(chatPage, /\[card ••••4242\]/, 'the card passage\'s snippet, redacted, on the conversation page');
      assert.match(chatPage, /\[card ••••4444\]/, 'the api source\'s answer, redacted, on the conversation page');
      assert.match(chatPage, /\[redacted iban\]/, 'the IBAN, redacted, on the conversation page');
      assert.match(pages.get(`/console/runs/${answered.run.id}/panel`)!, /\[card ••••4242\]/, 'the run panel\'s snippets, redacted');
      const toolPage = pages.get(`/console/runs/${lookedUp.run.id}/panel`)!;
      assert.match(toolPage, /card_declined/, 'the failed tool call is on its run panel');
      assert.match(toolPage, /\[card ••••1111\]/, 'its error message, redacted');
      assert.deepEqual(found, {});
    } finally {
      await api.close();
      await hooks.close();
      await tool.close();
    }
  });
});
