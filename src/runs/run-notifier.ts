import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { RunStatus } from '../db/tables/agents';
import type { Logger } from '../observability/logger';
import { pgListen, type PgListener } from '../platform/pg-listen';

const CHANNEL = 'converse_run_events';

/** A run notification's channel and the origin its payload names (`<run id>:<status>:<origin>`). */
export interface RunNotifyTarget {
  channel: string;
  origin: string;
}

/**
 * Tells waiters (a POST waiting for its run to settle, an SSE stream) that a run wrote something. In one
 * process (npm start on PGlite, tests) an in-process emitter does it; across processes (API and worker
 * apart) Postgres NOTIFY/LISTEN carries it. Waiters also re-read on a short interval, so a lost
 * notification only costs latency, never correctness: Postgres is the medium, this only wakes readers.
 */
export class RunNotifier {
  private readonly local = new EventEmitter().setMaxListeners(0);
  private listener?: PgListener;
  /** Names this process in its notifications, so its own come back to it once (in process), not twice. */
  private readonly origin = randomBytes(6).toString('hex');

  constructor(private readonly deps: { db: Kysely<DB>; databaseUrl?: string; notifyAcrossProcesses: boolean; log: Logger }) {}

  /**
   * Starts listening for other processes' notifications (API and worker processes with a Postgres server);
   * a second call does nothing. Resolves once listening, or after 5 s (logged; it goes on connecting, and
   * waiters poll meanwhile).
   */
  async listen(): Promise<void> {
    if (!this.deps.databaseUrl || this.listener) return;
    // Reconnects by itself (platform/pg-listen); waiters poll meanwhile, so a lost notification costs latency only.
    const listener = pgListen({
      url: this.deps.databaseUrl,
      channel: CHANNEL,
      onNotification: (payload) => {
        // `<run id>:<status or empty>:<origin>`; this process's own were delivered in process already.
        const [runId, status, origin] = payload.split(':');
        if (runId && origin !== this.origin) this.local.emit(runId, status || undefined);
      },
      onDisconnected: (err) => this.deps.log.warn({ err }, 'Run notification listener lost; waiters poll until it is back'),
    });
    this.listener = listener;
    if (!(await listener.readyWithin(5000))) this.deps.log.warn('Run notification listener not ready after 5 s; waiters poll until it is');
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = undefined;
  }

  async publish(runId: string): Promise<void> {
    this.notifyLocally(runId);
    await this.notifyAcross(this.deps.db, runId).catch((err) => this.deps.log.warn({ err }, 'Run notification failed'));
  }

  /**
   * The cross-process half of `publish` inside the writer's transaction: Postgres delivers a NOTIFY
   * sent in a transaction when it commits (and drops it on rollback), saving a round trip. Call
   * `notifyLocally` after the commit.
   */
  async notifyOnCommit(tx: Transaction<DB>, runId: string): Promise<void> {
    await this.notifyAcross(tx, runId);
  }

  /** Other processes' waiters, when they can be reached: `<run id>::<origin>` (no status named). */
  private async notifyAcross(db: Kysely<DB> | Transaction<DB>, runId: string): Promise<void> {
    if (this.deps.notifyAcrossProcesses) await sql`select pg_notify(${CHANNEL}, ${`${runId}::${this.origin}`})`.execute(db);
  }

  /**
   * Where a writer's own statement may `pg_notify` (so the notification costs no round trip of its own:
   * run-lifecycle.ts moveRun), with this process's origin; undefined when notifications stay in this process.
   */
  get acrossProcesses(): RunNotifyTarget | undefined {
    return this.deps.notifyAcrossProcesses ? { channel: CHANNEL, origin: this.origin } : undefined;
  }

  /**
   * The in-process half of `publish` (waiters in this process), once the write has committed. `status`: the
   * run's status after a move, so a waiter for an ending status need not read the run on a step it skips.
   */
  notifyLocally(runId: string, status?: RunStatus): void {
    this.local.emit(runId, status);
  }

  /**
   * Resolves on the next notification for the run, or after `pollMs` (whichever first). With `wakesOn`, a
   * notification that names a status `wakesOn` refuses is let pass (one that names none always wakes).
   */
  async next(runId: string, pollMs: number, signal?: AbortSignal, wakesOn?: (status: RunStatus) => boolean): Promise<void> {
    await new Promise<void>((resolve) => {
      const onNotification = (status?: RunStatus) => {
        if (status === undefined || !wakesOn || wakesOn(status)) done();
      };
      const done = () => {
        clearTimeout(timer);
        this.local.off(runId, onNotification);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      this.local.on(runId, onNotification);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
