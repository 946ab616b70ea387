import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { RunNotifier } from '../../src/runs/run-notifier';
import { RUN_WAIT_ENDS } from '../../src/runs/run-lifecycle';
import { silentLogger } from '../../src/observability/logger';
import { TEST_DATABASE_URL } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { startDevRuntime } from '../support/runtime';

/**
 * A run's notification names its new status, so a waiter for an ending status (a POST with wait_ms) does
 * not read the run on the in_progress move; one that names no status (a tool call's stream event) always
 * wakes. Across processes the status rides in the NOTIFY payload (`<run id>:<status>`).
 */
describe('RunNotifier', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('run-notifier');
  });
  after(async () => {
    await database.destroy();
  });

  const endsWait = (s: Parameters<typeof RUN_WAIT_ENDS.includes>[0]) => RUN_WAIT_ENDS.includes(s);
  const runId = () => `run_${randomBytes(6).toString('hex')}`;

  it('lets an in_progress notification pass a waiter for an ending status, and wakes it on completed', async () => {
    const notifier = new RunNotifier({ db: database.db, notifyAcrossProcesses: false, log: silentLogger() });
    const id = runId();
    let woke = false;
    const waiting = notifier.next(id, 60_000, undefined, endsWait).then(() => (woke = true));
    notifier.notifyLocally(id, 'in_progress');
    await new Promise((r) => setImmediate(r));
    assert.equal(woke, false, 'an in_progress move does not end the wait');
    notifier.notifyLocally(id, 'completed');
    await waiting;
    assert.equal(woke, true);

    // No status named (a stream event): the waiter wakes and reads.
    const other = runId();
    const unnamed = notifier.next(other, 60_000, undefined, endsWait);
    notifier.notifyLocally(other);
    await unnamed;
  });

  it('carries the status across processes in the NOTIFY payload', async () => {
    const api = new RunNotifier({ db: database.db, databaseUrl: TEST_DATABASE_URL, notifyAcrossProcesses: true, log: silentLogger() });
    const worker = new RunNotifier({ db: database.db, notifyAcrossProcesses: true, log: silentLogger() });
    await api.listen();
    try {
      const channel = worker.acrossProcesses?.channel;
      assert.ok(channel);
      const id = runId();
      const marker = runId();
      let woke = false;
      const waiting = api.next(id, 60_000, undefined, endsWait).then(() => (woke = true));
      const markerSeen = api.next(marker, 60_000);
      await sql`select pg_notify(${channel}, ${`${id}:in_progress`})`.execute(database.db);
      // Notifications arrive in the order they were sent: once the marker is seen, the in_progress one was too.
      await sql`select pg_notify(${channel}, ${marker})`.execute(database.db);
      await markerSeen;
      assert.equal(woke, false, 'the in_progress notification let the waiter be');
      await sql`select pg_notify(${channel}, ${`${id}:requires_action`})`.execute(database.db);
      await waiting;
      assert.equal(woke, true);
    } finally {
      await api.close();
    }
  });

  it('is listening in an API process of the production wiring: a run move written by another process wakes its waiters', { timeout: 120_000 }, async () => {
    const dev = await startDevRuntime({ label: 'run-notifier-api', api: true, worker: false });
    try {
      const notifier = dev.runtime.services.runNotifier;
      const channel = notifier.acrossProcesses?.channel;
      assert.ok(channel, 'a Postgres server carries notifications across processes');
      const id = runId();
      // wakesOn is asked only about a notification (never when the re-read interval ends the wait).
      let heard: string | undefined;
      const woken = notifier.next(id, 60_000, undefined, (status) => ((heard = status), true));
      await sql`select pg_notify(${channel}, ${`${id}:completed:another-process`})`.execute(database.db);
      await woken;
      assert.equal(heard, 'completed');

      // Its own notifications come back over LISTEN too: they were delivered in process, so they are dropped.
      const origin = notifier.acrossProcesses?.origin;
      const own = runId();
      let ownWoke = false;
      const stopWaiting = new AbortController();
      const ownWait = notifier.next(own, 60_000, stopWaiting.signal).then(() => (ownWoke = true));
      const marker = runId();
      const markerSeen = notifier.next(marker, 60_000);
      await sql`select pg_notify(${channel}, ${`${own}:completed:${origin}`})`.execute(database.db);
      await sql`select pg_notify(${channel}, ${`${marker}::another-process`})`.execute(database.db);
      await markerSeen; // in order: the echo came before the marker
      assert.equal(ownWoke, false, 'an echo of its own notification is not delivered a second time');
      stopWaiting.abort();
      await ownWait;
    } finally {
      await dev.close();
    }
  });
});
