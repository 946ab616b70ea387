import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useTestStack } from '../support/stack';

/**
 * Issue 19: the console's errors take their status from the service's one error table (domain/errors.ts),
 * on its error page and in its JSON errors, as the API does.
 */
const ctx = useTestStack({ label: __filename, worker: false });

const base = () => ctx.stack.baseUrl;

/** Signs in with a secret key and returns a client carrying the session cookie and CSRF token. */
async function signIn(apiKey: string) {
  const res = await fetch(`${base()}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base() },
    body: new URLSearchParams({ secret_key: apiKey }).toString(),
  });
  assert.equal(res.status, 303);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('converse_console='))!.split(';')[0]!;
  const keys = await (await fetch(`${base()}/console/keys`, { headers: { cookie } })).text();
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(keys)?.[1];
  assert.ok(csrf);
  const post = async (path: string, body: Record<string, string>, accept: 'html' | 'json') => {
    const r = await fetch(`${base()}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: base(), 'content-type': 'application/x-www-form-urlencoded', accept: accept === 'json' ? 'application/json' : 'text/html' },
      body: new URLSearchParams({ _csrf: csrf, ...body }).toString(),
    });
    return { status: r.status, text: await r.text() };
  };
  return { post };
}

describe('console errors from the one error table', () => {
  it('answers a reply to a closed conversation with 409 conversation_closed, on the error page and in JSON', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount('Closed Co');
    const scope = { accountId, livemode: false };
    const agent = await ctx.stack.services.agents.createAgent({ ...scope, config: { name: 'Support', channels: ['chat'] } });
    await ctx.stack.services.agents.publishAgent({ ...scope, agentId: agent.id });
    const conversation = await ctx.stack.services.conversations.createConversation({ ...scope, agent_id: agent.id });
    const s = await signIn(apiKey);
    assert.equal((await s.post(`/console/inbox/${conversation.id}/close`, {}, 'html')).status, 303);

    const page = await s.post(`/console/inbox/${conversation.id}/reply`, { content: 'Still there?' }, 'html');
    assert.equal(page.status, 409, 'the table says 409 (the console used to answer 400)');
    assert.match(page.text, /That did not work/);
    assert.match(page.text, new RegExp(`Conversation ${conversation.id} is closed`));

    const json = await s.post(`/console/inbox/${conversation.id}/reply`, { content: 'Still there?' }, 'json');
    assert.equal(json.status, 409);
    assert.equal((JSON.parse(json.text) as { error: { code: string } }).error.code, 'conversation_closed');
  });

  it('keeps 404 for a missing object and 400 for a form that fails its schema', async () => {
    const { apiKey } = await ctx.stack.newAccount('Missing Co');
    const s = await signIn(apiKey);
    const missing = await s.post('/console/inbox/cnv_missing/close', {}, 'html');
    assert.equal(missing.status, 404);
    assert.match(missing.text, /<h1>Not found<\/h1>/);
    const invalid = await s.post('/console/inbox/cnv_missing/reply', { content: '   ' }, 'json');
    assert.equal(invalid.status, 400);
    assert.equal((JSON.parse(invalid.text) as { error: { code: string } }).error.code, 'parameter_invalid');
  });
});
