import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { pgListen } from '../../src/platform/pg-listen';
import { TEST_DATABASE_URL } from '../support/config';
import { pollUntil } from '../support/poll';

/** Runs one statement on a connection of its own. */
async function run(text: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    return await c.query(text, values);
  } finally {
    await c.end();
  }
}

describe('pgListen (the one reconnecting LISTEN)', () => {
  it('delivers notifications, and after its connection is killed reconnects, says so, and delivers again', async () => {
    const channel = `pg_listen_${randomBytes(4).toString('hex')}`;
    const payloads: string[] = [];
    const connections: boolean[] = [];
    let drops = 0;
    const listener = pgListen({
      url: TEST_DATABASE_URL,
      channel,
      retryMs: 20,
      onNotification: (p) => payloads.push(p),
      onConnected: (reconnected) => connections.push(reconnected),
      onDisconnected: () => drops++,
    });
    try {
      await listener.ready;
      await run('select pg_notify($1, $2)', [channel, 'first']);
      await pollUntil('the first notification', () => payloads.includes('first'));

      // The server ends the listening backend (a failover, an idle-connection reaper).
      const killed = await run('select pg_terminate_backend(pid) as ok from pg_stat_activity where query = $1', [`LISTEN "${channel}"`]);
      assert.equal(killed.rowCount, 1, 'the listening connection was found and ended');
      await pollUntil('the listener to reconnect', () => connections.length === 2);
      assert.deepEqual(connections, [false, true]);
      assert.ok(drops >= 1);

      await run('select pg_notify($1, $2)', [channel, 'second']);
      await pollUntil('the notification sent after the reconnection', () => payloads.includes('second'));
    } finally {
      await listener.close();
    }
  });

  it('ignores other channels and stops for good once closed', async () => {
    const channel = `pg_listen_${randomBytes(4).toString('hex')}`;
    const payloads: string[] = [];
    const listener = pgListen({ url: TEST_DATABASE_URL, channel, onNotification: (p) => payloads.push(p) });
    await listener.ready;
    await run('select pg_notify($1, $2)', [`${channel}_other`, 'elsewhere']);
    await run('select pg_notify($1, $2)', [channel, 'mine']);
    await pollUntil('the notification on its own channel', () => payloads.includes('mine'));
    assert.deepEqual(payloads, ['mine']);
    await listener.close();
    const listening = await run('select count(*)::int as n from pg_stat_activity where query = $1', [`LISTEN "${channel}"`]);
    assert.equal(listening.rows[0].n, 0, 'no connection left listening');
  });

  it('keeps trying while the server is unreachable, without holding its caller', async () => {
    let failures = 0;
    // Port 1 on loopback: nothing listens, every attempt is refused at once.
    const listener = pgListen({ url: 'postgres://postgres@127.0.0.1:1/test', channel: 'unreachable', retryMs: 10, maxRetryMs: 20, onNotification: () => undefined, onDisconnected: () => failures++ });
    try {
      assert.equal(await listener.readyWithin(300), false);
      assert.ok(failures >= 2, `tried again after a refusal (${failures} attempts failed)`);
    } finally {
      await listener.close();
    }
  });
});
