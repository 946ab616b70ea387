import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { INBOUND_EMAIL_PATH } from '../../src/channels/email/email.routes';
import { signatureHeader } from '../../src/domain/signature';
import { buildTestConfig } from '../support/config';
import { seedAgent, type AgentFixture } from '../support/agents';
import { deliveryStatusReport } from '../support/delivery-status';
import { verifyDkim } from '../support/dkim-verify';
import { TxtDnsServer } from '../support/dns-server';
import { signInToConsole } from '../support/console';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';

const INBOUND_SECRET = `whsec_${randomBytes(18).toString('base64url')}`;

/** The relay: every email it accepted, with its envelope. */
const relay: { mailFrom: string; rcptTo: string[]; raw: Buffer; mail: ParsedMail }[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks);
      simpleParser(raw)
        .then((mail) => {
          relay.push({ mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', rcptTo: session.envelope.rcptTo.map((r) => r.address), raw, mail });
          callback();
        })
        .catch(callback);
    });
  },
});
const dns = new TxtDnsServer();

const base = buildTestConfig();
const email = {
  ...base.email,
  smtp: { host: '127.0.0.1', port: 0, secure: false, timeoutMs: 5000 },
  from: 'agent@converse.test',
  messageIdDomain: 'converse.test',
  returnPathDomain: 'bounces.converse.test',
  inboundSecret: INBOUND_SECRET,
  inboundMaxBytes: 10_000_000,
};
before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  email.smtp.port = (smtp.server.address() as AddressInfo).port;
  email.dnsServers = [await dns.start()];
});
after(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await dns.close();
});
const ctx = useTestStack({ label: __filename, config: { email } });

async function postInbound(raw: string) {
  const res = await fetch(`${ctx.stack.baseUrl}${INBOUND_EMAIL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'message/rfc822', 'service-signature': signatureHeader(INBOUND_SECRET, raw) },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as any };
}

function mime(m: { from: string; to: string; subject: string; text: string; messageId?: string }): string {
  return [`From: ${m.from}`, `To: ${m.to}`, `Subject: ${m.subject}`, `Message-ID: <${m.messageId ?? `${uid()}@customer.test`}>`, 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', '', m.text, ''].join('\r\n');
}

/** Adds `domain` over the API; with `publish`, its ownership and DKIM records go into the DNS server and it is verified. */
async function addDomain(call: AgentFixture['call'], domain: string, publish = true) {
  const added = await call('POST', '/v1/email_domains', { domain });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  if (!publish) return added.body;
  for (const r of added.body.dns_records) dns.addTxt(r.name, r.value);
  const verified = await call('POST', `/v1/email_domains/${added.body.id}/verify`);
  assert.equal(verified.status, 200, JSON.stringify(verified.body));
  return verified.body;
}

/** A live email agent answering at support@<a verified domain>. */
async function liveEmailAgent() {
  const f = await seedAgent(ctx.stack, { channels: ['chat', 'email'] }, undefined, 'live');
  const domain = `acme-${uid()}.test`;
  const verified = await addDomain(f.call, domain);
  const address = `support@${domain}`;
  const added = await f.call('POST', '/v1/email_addresses', { address, display_name: 'Acme Support', agent_id: f.agentId });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  return { ...f, domain, address, domainObject: verified };
}

const mailTo = (to: string) => pollUntil(`an email to ${to}`, () => relay.find((e) => e.rcptTo.includes(to)), { detail: () => `${relay.length} emails relayed` });

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

/**
 * Runs `hostile` and, while it is in flight, asks /healthz again and again: the slowest answer among the
 * probes sent before the hostile request came back (at least one is sent, right after it starts).
 */
async function healthDuring(hostile: () => Promise<unknown>): Promise<{ worstMs: number; probes: number }> {
  let done = false;
  let worstMs = 0;
  let probes = 0;
  const running = hostile().finally(() => (done = true));
  const probing = (async () => {
    do {
      const started = performance.now();
      const res = await fetch(`${ctx.stack.baseUrl}/healthz`);
      await res.arrayBuffer();
      worstMs = Math.max(worstMs, performance.now() - started);
      probes++;
    } while (!done);
  })();
  await Promise.all([running, probing]);
  return { worstMs, probes };
}

describe('live inbound email across accounts (28 #4, as reported)', () => {
  it("a test key registering a customer's address does not drop that customer's live mail to another account", async () => {
    const a = await liveEmailAgent();
    const carol = `carol-${uid()}@customer-corp.test`;
    const b = await ctx.stack.newAccount('Account B');
    assert.equal((await apiClient(ctx.stack.baseUrl, b.apiKey)('POST', '/v1/email_addresses', { address: carol })).status, 201);
    const res = await postInbound(mime({ from: carol, to: a.address, subject: 'Invoice', text: 'Where is my invoice?' }));
    assert.equal(res.body.status, 'accepted', JSON.stringify(res.body));
    const conversation = await a.call('GET', `/v1/conversations/${res.body.conversation_id}`);
    assert.equal(conversation.body.customer.email, carol);
  });
});

describe('inbound email parsing is linear (28 #2)', () => {
  // 36 KB: ">" lines, then one line of new text; the old scan re-read the rest of the text at every quote line.
  const hostileText = `${'>\r\n'.repeat(12_000)}x`;
  const hostileMime = (to: string) =>
    [`From: m@attacker.test`, `To: ${to}`, 'Subject: quotes', `Message-ID: <q-${uid()}@attacker.test>`, 'MIME-Version: 1.0', 'Content-Type: text/plain', '', hostileText, ''].join('\r\n');

  it('a relay-signed email of 12,000 quote lines leaves /healthz answering within 200 ms', async () => {
    const raw = hostileMime(`nobody-${uid()}@nowhere.test`);
    let status = 0;
    const { worstMs, probes } = await healthDuring(async () => {
      const res = await fetch(`${ctx.stack.baseUrl}${INBOUND_EMAIL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822', 'service-signature': signatureHeader(INBOUND_SECRET, raw) },
        body: raw,
      });
      status = res.status;
      await res.arrayBuffer();
    });
    assert.equal(status, 200);
    assert.ok(probes >= 1);
    assert.ok(worstMs < 200, `/healthz took ${Math.round(worstMs)} ms while the email was parsed`);
  });

  it('the test helper with the same body: /healthz within 200 ms, and the email is taken (its text cut to the examined lines)', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'email'] });
    const address = `support-${uid()}@acme-${uid()}.test`;
    assert.equal((await f.call('POST', '/v1/email_addresses', { address, agent_id: f.agentId })).status, 201);
    let body: any;
    const { worstMs } = await healthDuring(async () => {
      body = (await f.call('POST', '/v1/test_helpers/inbound_emails', { raw: hostileMime(address) })).body;
    });
    assert.ok(worstMs < 200, `/healthz took ${Math.round(worstMs)} ms while the email was parsed`);
    assert.equal(body.status, 'accepted', JSON.stringify(body));
    const transcript = await f.call('GET', `/v1/conversations/${body.conversation_id}/messages`);
    const content = transcript.body.data[0].content as string;
    assert.ok(content.startsWith('>\n>\n') && content.length <= 20_000, `${content.length} characters`);
  });
});

describe('email is sent only from domains an account proves it owns (28 #3, #8)', () => {
  it('test mode never reaches the relay: a test key sending "from" any domain lands in the sandbox, readable at /v1/emails', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'email'] });
    const from = `security-${uid()}@bigbank.example`;
    assert.equal((await f.call('POST', '/v1/email_addresses', { address: from, agent_id: f.agentId })).status, 201);
    const victim = `victim-${uid()}@example.net`;
    const cnv = await f.call('POST', '/v1/conversations', { agent_id: f.agentId, channel: 'email', customer: { email: victim } });
    assert.equal(cnv.status, 201, JSON.stringify(cnv.body));
    const human = await f.call('POST', `/v1/conversations/${cnv.body.id}/messages`, { role: 'human', content: 'Please confirm your account at https://bigbank.example.evil/login' });
    assert.equal(human.status, 201, JSON.stringify(human.body));

    const sandboxed = await pollUntil('the sandboxed email', async () => {
      const list = await f.call('GET', `/v1/emails?conversation_id=${cnv.body.id}&direction=outbound`);
      assert.equal(list.status, 200, JSON.stringify(list.body));
      return list.body.data.find((e: any) => e.status !== 'sending');
    });
    assert.equal(sandboxed.status, 'delivered');
    assert.equal(sandboxed.sandbox, true);
    assert.equal(sandboxed.to, victim);
    const one = await f.call('GET', `/v1/emails/${sandboxed.id}`);
    assert.equal(one.status, 200);
    assert.match(one.body.content.text, /Please confirm your account/);
    assert.match(one.body.content.html, /<p>/);
    // Another account cannot read it.
    const other = await ctx.stack.newAccount();
    assert.equal((await apiClient(ctx.stack.baseUrl, other.apiKey)('GET', `/v1/emails/${sandboxed.id}`)).status, 404);
    // The console's Email page shows the sandbox, with what the email says.
    const page = await (await signInToConsole(ctx.stack.baseUrl, f.apiKey)).get('/console/email');
    assert.match(page.text, /<h2>Sandbox<\/h2>/);
    assert.ok(page.text.includes(victim) && page.text.includes('Please confirm your account'), 'the sandboxed email on the Email page');
    assert.doesNotMatch(page.text, /smtp-not-configured/, 'an SMTP relay is configured here');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(relay.filter((e) => e.rcptTo.includes(victim)).length, 0, 'nothing reached the relay');
  });

  it('test keys claim nothing: the same test-mode address in two accounts; a live address needs a verified domain of its own account', async () => {
    const shared = `security-${uid()}@gmail.test`;
    for (const name of ['A', 'B']) {
      const { apiKey } = await ctx.stack.newAccount(name);
      const res = await apiClient(ctx.stack.baseUrl, apiKey)('POST', '/v1/email_addresses', { address: shared });
      assert.equal(res.status, 201, `${name}: ${JSON.stringify(res.body)}`);
    }

    const a = await ctx.stack.newAccount('Live A', 'live');
    const callA = apiClient(ctx.stack.baseUrl, a.apiKey);
    const domain = `bigbank-${uid()}.test`;
    const refused = await callA('POST', '/v1/email_addresses', { address: `security@${domain}` });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'domain_not_verified');
    assert.equal(refused.body.error.param, 'address');

    const pending = await addDomain(callA, domain, false);
    assert.equal(pending.status, 'pending');
    const ownership = pending.dns_records.find((r: any) => r.purpose === 'ownership');
    assert.equal(ownership.type, 'TXT');
    assert.equal(ownership.name, `_converse-verification.${domain}`);
    assert.match(ownership.value, /^converse-verification=[A-Za-z0-9_-]{20,}$/);
    const early = await callA('POST', `/v1/email_domains/${pending.id}/verify`);
    assert.equal(early.status, 422, JSON.stringify(early.body));
    assert.equal(early.body.error.code, 'domain_not_verified');
    assert.ok(early.body.error.message.includes(ownership.value), early.body.error.message);
    assert.equal((await callA('GET', `/v1/email_domains/${pending.id}`)).body.status, 'pending', 'a failed check changes nothing');

    dns.addTxt(ownership.name, ownership.value);
    const verified = await callA('POST', `/v1/email_domains/${pending.id}/verify`);
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.equal(verified.body.status, 'verified');
    assert.ok(dns.queries.includes(ownership.name), 'looked up over DNS');
    // The console shows the record to publish (name and value) and the domain's status.
    const consolePage = await (await signInToConsole(ctx.stack.baseUrl, a.apiKey)).get('/console/email');
    assert.ok(consolePage.text.includes(ownership.name) && consolePage.text.includes(ownership.value), 'the TXT record in the console');
    assert.match(consolePage.text, /badge-verified/);
    assert.equal((await callA('POST', '/v1/email_addresses', { address: `security@${domain}` })).status, 201);
    assert.equal((await callA('POST', '/v1/email_addresses', { address: `help@mail.${domain}` })).status, 201, 'a subdomain of a verified domain');
    assert.deepEqual(await ctx.stack.services.emailDomains.verifiedDomains({ accountId: a.accountId, livemode: true }), [domain]);
    assert.deepEqual(await ctx.stack.services.emailDomains.verifiedDomains({ accountId: a.accountId, livemode: false }), [], 'per mode');

    // Another account proves the same domain with its own token: A's record proves nothing for it.
    const b = await ctx.stack.newAccount('Live B', 'live');
    const callB = apiClient(ctx.stack.baseUrl, b.apiKey);
    const bDomain = await addDomain(callB, domain, false);
    const bOwnership = bDomain.dns_records.find((r: any) => r.purpose === 'ownership');
    assert.notEqual(bOwnership.value, ownership.value);
    assert.equal((await callB('POST', `/v1/email_domains/${bDomain.id}/verify`)).status, 422, "A's record is not B's proof");
    assert.equal((await callB('POST', '/v1/email_addresses', { address: `sales@${domain}` })).status, 422);
    dns.addTxt(bOwnership.name, bOwnership.value);
    assert.equal((await callB('POST', `/v1/email_domains/${bDomain.id}/verify`)).body.status, 'verified');
    assert.equal((await callB('POST', '/v1/email_addresses', { address: `sales@${domain}` })).status, 201, 'not blocked by A');
    const taken = await callB('POST', '/v1/email_addresses', { address: `security@${domain}` });
    assert.equal(taken.status, 409, 'a live address has one owner');

    // Bad input: a clear error, nothing stored.
    const bad = await callA('POST', '/v1/email_domains', { domain: 'not a domain' });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.error.param, 'domain');
    assert.equal((await callA('POST', '/v1/email_domains', { domain: domain.toUpperCase() })).status, 409);
    assert.equal((await callB('GET', `/v1/email_domains/${pending.id}`)).status, 404, "another account's domain");
    assert.equal((await callA('GET', '/v1/email_domains')).body.data.length, 1);
  });

  it("states the domain's form in the document: what it accepts is taken (any case, a final dot), what it refuses is 400 (found by npm run fuzz)", async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const doc = (await call('GET', '/v1/openapi.json')).body;
    const field = doc.paths['/v1/email_domains'].post.requestBody.content['application/json'].schema;
    const domainSchema = (field.$ref ? doc.components.schemas[field.$ref.split('/').pop()] : field).properties.domain;
    const documented = new RegExp(domainSchema.pattern);
    for (const domain of ['Shop-1.Example', 'mail.shop.example.', 'a.bc', '0.A.']) {
      assert.ok(documented.test(domain), domain);
      assert.equal((await call('POST', '/v1/email_domains', { domain })).status, 201, domain);
    }
    for (const domain of ['0'.repeat(253), `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(30)}`, 'shop', '-shop.example', 'shop.123', 'shop..example', ' shop.example']) {
      assert.ok(!documented.test(domain) || domain.length > domainSchema.maxLength, `the document refuses ${domain}`);
      const res = await call('POST', '/v1/email_domains', { domain });
      assert.equal(res.status, 400, `${domain}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.param, 'domain');
    }
  });

  it('an account holds at most 50 domains per mode (each costs a key pair): 422 account_limit_reached past that', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Many domains');
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const rows = Array.from({ length: 49 }, (_, i) => ({
      id: `edom_seed${uid()}${i}`, account_id: accountId, livemode: false, domain: `d${i}-${uid()}.test`, verification_token: uid(),
      dkim_selector: 'cvseed', dkim_public_key: 'AAAA', dkim_private_key_sealed: 'v1.a.b.c',
    }));
    await ctx.stack.database.db.insertInto('email_domains').values(rows).execute();
    assert.equal((await call('POST', '/v1/email_domains', { domain: `fiftieth-${uid()}.test` })).status, 201);
    const over = await call('POST', '/v1/email_domains', { domain: `one-more-${uid()}.test` });
    assert.equal(over.status, 422, JSON.stringify(over.body));
    assert.equal(over.body.error.code, 'account_limit_reached');
    assert.equal((await call('GET', '/v1/email_domains?limit=100')).body.data.length, 50);
  });

  it('live mail goes out from a verified domain, DKIM-signed, with its own return path; mail for an unproven domain is not received', async () => {
    const f = await liveEmailAgent();
    const customer = `ada-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Shipping', text: 'How long does standard shipping take?' }));
    assert.equal(res.body.status, 'accepted', JSON.stringify(res.body));
    const sent = await mailTo(customer);
    assert.equal(sent.mail.from?.value[0]?.address, f.address);
    const dkim = sent.mail.headerLines.find((l) => l.key === 'dkim-signature')?.line.replace(/\s+/g, ' ') ?? '';
    const selector = f.domainObject.dns_records.find((r: any) => r.purpose === 'dkim').name.split('.')[0];
    assert.match(dkim, new RegExp(`\\bd=${f.domain.replace(/\./g, '\\.')};`), dkim);
    assert.match(dkim, new RegExp(`\\bs=${selector};`), dkim);
    assert.match(dkim, /\bb=[A-Za-z0-9+/= ]{40,}/, dkim);
    // The signature verifies with the key of the DKIM record the console showed (as a receiver checks it).
    const record = f.domainObject.dns_records.find((r: any) => r.purpose === 'dkim').value as string;
    const tags = verifyDkim(sent.raw, /p=([A-Za-z0-9+/=]+)/.exec(record)![1]!);
    assert.ok(tags.h!.split(':').includes('from'), tags.h);
    assert.throws(() => verifyDkim(Buffer.from(sent.raw.toString('latin1').replace(/^Subject: /m, 'Subject: Urgent '), 'latin1'), /p=([A-Za-z0-9+/=]+)/.exec(record)![1]!), /does not verify/);
    assert.match(sent.mailFrom, /^bounces\+[0-9a-f]{24}@bounces\.converse\.test$/);
    const emails = (await f.call('GET', '/v1/emails?direction=outbound')).body.data;
    assert.equal(emails[0].return_path, sent.mailFrom);
    assert.equal(emails[0].sandbox, false);

    // The account deletes the domain: live mail for its addresses is no longer received.
    await f.call('DELETE', `/v1/email_domains/${f.domainObject.id}`);
    const after = await postInbound(mime({ from: customer, to: f.address, subject: 'Again', text: 'Anyone there?' }));
    assert.equal(after.body.status, 'ignored');
    assert.match(after.body.reason, /not verified/);
  });

  it('the relay reaches live addresses only: mail to a test-mode address is ignored', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'email'] });
    const address = `support-${uid()}@acme-${uid()}.test`;
    assert.equal((await f.call('POST', '/v1/email_addresses', { address, agent_id: f.agentId })).status, 201);
    const res = await postInbound(mime({ from: `x-${uid()}@customer.test`, to: address, subject: 'Hi', text: 'Hello' }));
    assert.equal(res.body.status, 'ignored');
    assert.equal((await f.call('GET', '/v1/conversations')).body.data.length, 0);
  });
});

describe('bounces are accepted only at the return path of the email they report (28 #14)', () => {
  it('a relay-signed DSN naming a known Message-ID, sent anywhere else, changes nothing; at the return path it bounces the email', async () => {
    const f = await liveEmailAgent();
    const customer = `dan-${uid()}@customer.test`;
    await postInbound(mime({ from: customer, to: f.address, subject: 'Shipping', text: 'How long does standard shipping take?' }));
    const sent = await mailTo(customer);
    const dsn = (to: string) => deliveryStatusReport({ to, recipient: customer, status: '5.1.1', original: { messageId: sent.mail.messageId! } });
    const emailOf = async () => (await f.call('GET', '/v1/emails?direction=outbound')).body.data[0];
    await pollUntil('delivered', async () => (await emailOf()).status === 'delivered');

    // Forged: to the account's own address, to nobody, to a made-up return path.
    for (const to of [f.address, `nobody-${uid()}@elsewhere.test`, `bounces+${'0'.repeat(24)}@bounces.converse.test`]) {
      const forged = await postInbound(dsn(to));
      assert.equal(forged.status, 200);
      assert.equal(forged.body.status, 'ignored', `${to}: ${JSON.stringify(forged.body)}`);
    }
    assert.equal((await emailOf()).status, 'delivered');

    const real = await postInbound(dsn(sent.mailFrom));
    assert.equal(real.body.status, 'bounce', JSON.stringify(real.body));
    const bounced = await emailOf();
    assert.equal(bounced.status, 'bounced');
    assert.equal(bounced.error.code, 'dsn_5.1.1');
  });
});
