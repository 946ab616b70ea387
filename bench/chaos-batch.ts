/**
 * The `message_batch_worker_kill_9` scenario of `npm run chaos`: one POST /v1/message_batches of CHAOS_SIZE
 * recipients (retried with its Idempotency-Key), the worker killed with SIGKILL once a third of the batch
 * has left, and started again. Counted like the other scenarios: at the SMSCs (each recipient's body is its
 * own, so a body accepted twice is a duplicate) and in the database (messages `delivered`).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema';
import type { ApiClient } from '../test/support/http';
import type { SmscSimulator } from '../test/support/smsc-simulator';
import { round } from './support';

export interface BatchChaosStack {
  call: ApiClient;
  db: Kysely<DB>;
  smscs: SmscSimulator[];
  killWorker(): void;
  startWorker(): Promise<void>;
  /** Calls `fn` until `ok` holds, through errors (the service or the database away). */
  untilOk<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T>;
  progress(what: string, fields?: Record<string, unknown>): void;
  stallMs: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runBatchWorkerKill(stack: BatchChaosStack, index: number, size: number) {
  const name = 'message_batch_worker_kill_9';
  const started = performance.now();
  const bodyOf = (i: number) => `${name} sms ${i}`;
  const recipients = Array.from({ length: size }, (_, i) => ({ to: `+1415${(index + 2) * 1_000_000 + i}`, variables: { text: bodyOf(i) } }));
  const res = await stack.untilOk(
    () => stack.call('POST', '/v1/message_batches', { from: 'Chaos', body: '{{text}}', recipients }, { 'Idempotency-Key': name }),
    (r) => {
      if (r.status >= 400 && r.status < 500 && r.status !== 409 && r.status !== 429) throw new Error(`POST /v1/message_batches answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.status === 202;
    },
  );
  const batchId = res.body.id as string;
  stack.progress(`${name}: accepted`, { batchId });

  const states = () =>
    stack.untilOk(async () => {
      const rows = await stack.db
        .selectFrom('messages')
        .select(['status', sql<number>`count(*)::int`.as('n')])
        .where('message_batch_id', '=', batchId)
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
    }, () => true);
  const bodies = new Set(recipients.map((r) => r.variables.text));
  const arrived = () => stack.smscs.flatMap((s) => s.accepted).filter((s) => bodies.has(s.text)).map((s) => s.text);

  // A third of the batch handed to a carrier: kill -9 the worker mid-batch, then start it again.
  for (;;) {
    const s = await states();
    if ((s.sending ?? 0) + (s.sent ?? 0) + (s.delivered ?? 0) >= size / 3) break;
    await pause(50);
  }
  stack.progress(`${name}: kill -9 the worker`);
  stack.killWorker();
  await stack.startWorker();
  stack.progress(`${name}: worker restarted`);

  let last = '';
  let lastChange = Date.now();
  let final = await states();
  for (;;) {
    final = await states();
    if ((final.delivered ?? 0) === size) break;
    const state = JSON.stringify([final, arrived().length]);
    if (state !== last) {
      stack.progress(`${name}: messages, SMSC arrivals`, { state });
      last = state;
      lastChange = Date.now();
    }
    if (Date.now() - lastChange > stack.stallMs) break;
    await pause(500);
  }
  await pause(2000); // a late resend shows up here
  final = await states();
  const sms = arrived();
  const distinct = new Set(sms).size;
  return {
    seconds: round((performance.now() - started) / 1000, 1),
    sms: {
      sent: size,
      arrived: distinct,
      lost: size - Math.min(distinct, final.delivered ?? 0),
      duplicated: sms.length - distinct,
      final_states: final,
    },
  };
}
