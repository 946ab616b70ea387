import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { IdempotencyKeyRepo } from '../../src/http/idempotency-key.repo';
import { REPLAY_WINDOW_MS } from '../../src/http/middleware/idempotency';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, worker: false });

async function upload(apiKey: string, key: string, content: string) {
  const form = new FormData();
  form.append('purpose', 'knowledge');
  form.append('file', new Blob([content], { type: 'text/markdown' }), 'notes.md');
  const res = await fetch(`${ctx.stack.baseUrl}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'Idempotency-Key': key },
    body: form,
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as any };
}

/**
 * Makes the first store of a response (an update of a key to `done`) fail as if the database blinked,
 * with a trigger named `name`; resolves with the function that removes it.
 */
async function failFirstResponseStore(name: string): Promise<() => Promise<void>> {
  const db = ctx.stack.database.db;
  await sql`create sequence ${sql.id(name)}`.execute(db);
  await sql`create function ${sql.id(name)}() returns trigger language plpgsql as ${sql.lit(
    `begin if new.state = 'done' and nextval('${name}') = 1 then raise exception 'database blinked'; end if; return new; end`,
  )}`.execute(db);
  await sql`create trigger ${sql.id(name)} before update on idempotency_keys for each row execute function ${sql.id(name)}()`.execute(db);
  return async () => void (await sql`drop trigger ${sql.id(name)} on idempotency_keys`.execute(db));
}

describe('idempotency store', () => {
  it('hashes multipart uploads by content: the same file replays, another file is refused', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const first = await upload(apiKey, 'up-1', '# Hours\nOpen 9-5');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // FormData picks a new boundary each time: the same content still replays.
    const again = await upload(apiKey, 'up-1', '# Hours\nOpen 9-5');
    assert.equal(again.replayed, 'true');
    assert.equal(again.body.id, first.body.id);
    const other = await upload(apiKey, 'up-1', '# Prices\nEverything is free');
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, 'idempotency_key_reused');
  });

  it('does not leave a key blocked when its response could not be stored', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const restore = await failFirstResponseStore('idem_blink');
    try {
      const body = { url: 'https://example.com/hook', events: ['message.updated'] };
      const first = await call('POST', '/v1/webhook_endpoints', body, { 'Idempotency-Key': 'blink' });
      assert.equal(first.status, 201);
      const retry = await call('POST', '/v1/webhook_endpoints', body, { 'Idempotency-Key': 'blink' });
      assert.notEqual(retry.status, 409, 'the retry is not blocked as in progress');
      assert.equal(retry.status, 201);
    } finally {
      await restore();
    }
  });

  it('commits an SMS with its Idempotency-Key response: when the response cannot be stored, no message is queued, and the retry sends one', async () => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    await ctx.stack.services.senders.registerSender({ accountId, livemode: false, sender: 'Blink' });
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const db = ctx.stack.database.db;
    const restore = await failFirstResponseStore('sms_blink');
    const body = { to: '+14155550199', from: 'Blink', body: 'exactly once' };
    const queued = () => db.selectFrom('messages').innerJoin('sms_outbox', 'sms_outbox.message_id', 'messages.id').select('messages.id').where('messages.body', '=', body.body).execute();
    try {
      const first = await call('POST', '/v1/messages', body, { 'Idempotency-Key': 'sms-blink' });
      assert.ok(first.status >= 500, `the failed request answered ${first.status}`);
      // Before, the message was stored and queued while its response was not: the retry sent a second one.
      assert.deepEqual(await queued(), [], 'nothing was queued by the failed request');
      const retry = await call('POST', '/v1/messages', body, { 'Idempotency-Key': 'sms-blink' });
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      assert.deepEqual((await queued()).map((m) => m.id), [retry.body.id]);
      const replay = await call('POST', '/v1/messages', body, { 'Idempotency-Key': 'sms-blink' });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, retry.body);
    } finally {
      await restore();
    }
  });

  it('sweeps keys older than the 24 h replay window', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const db = ctx.stack.database.db;
    const row = (key: string, hoursAgo: number) => ({
      account_id: accountId, key, request_method: 'POST', request_path: '/v1/x', request_hash: 'h', state: 'done' as const,
      response_status: 200, response_body: '{}', created_at: new Date(Date.now() - hoursAgo * 3_600_000),
    });
    await db.insertInto('idempotency_keys').values([row('old', 25), row('new', 1)]).execute();
    const deleted = await new IdempotencyKeyRepo().deleteExpired(db, REPLAY_WINDOW_MS);
    assert.ok(deleted >= 1);
    const left = await db.selectFrom('idempotency_keys').select('key').where('account_id', '=', accountId).execute();
    assert.deepEqual(left.map((r) => r.key), ['new']);
  });
});
