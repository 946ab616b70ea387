import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { OutboxPump, type ListenFn } from '../platform/outbox-pump';
import type { Logger } from '../observability/logger';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { webhookDeliveryWorkflowContract, webhookDeliveryWorkflowId, webhookRetrySchedule } from '../../workflows/shared/webhooks.contracts';
import type { EventsService } from './events.service';
import type { WebhookDeliveryService } from './webhook-delivery.service';
import { OUTBOX_CHANNEL, WebhookOutboxRepo, type ClaimedDelivery } from './webhook-outbox.repo';

export interface WebhookDispatcherOptions {
  /** Attempts in flight at once, over all endpoints. */
  concurrency: number;
  /** Attempts in flight at once to one endpoint (or one callback URL). */
  perEndpoint: number;
  /** How often the outbox is swept for deliveries no notification announced (or whose claim expired). */
  sweepMs: number;
  /**
   * How long a claim holds before another dispatcher may take the delivery (its worker died). A live
   * dispatcher renews the claims it holds every third of this, so it only bounds how long a dead
   * worker's deliveries wait.
   */
  leaseMs: number;
  /** Multiplies the retry schedule's delays (1 in production; see WEBHOOK_RETRY_SCALE). */
  retryScale?: number;
}

/** Retry a delivery whose retry workflow could not be started (Temporal away) after this long. */
const START_RETRY_MS = 5_000;

/**
 * The outbox dispatcher (worker process): claims undispatched deliveries, makes each one's first attempt
 * directly, and starts the durable retry workflow only for a failed attempt. Woken by the in-process
 * announcement of EventsService, by LISTEN on OUTBOX_CHANNEL (emits in other processes), and by a sweep.
 *
 * Fairness: at most `perEndpoint` attempts run per endpoint, so a slow endpoint holds at most that many
 * of the `concurrency` slots; a claim takes at most `concurrency` deliveries per account, accounts in
 * random order, and claimed deliveries start round-robin between accounts.
 */
export class WebhookDispatcher {
  private readonly repo = new WebhookOutboxRepo();
  private readonly pump: OutboxPump;
  private active = 0;
  /** Claimed deliveries waiting for a slot, per account (Map order = round-robin order). */
  private readonly queued = new Map<string, ClaimedDelivery[]>();
  private queuedCount = 0;
  /** Attempts running or waiting, per endpoint key. */
  private readonly perKey = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries this dispatcher has claimed and not settled yet (queued, in flight, being recorded). */
  private readonly held = new Set<string>();
  private renewTimer?: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      events: EventsService;
      deliveries: WebhookDeliveryService;
      workflows: WorkflowGateway;
      log: Logger;
      options: WebhookDispatcherOptions;
    },
  ) {
    this.pump = new OutboxPump({
      channel: OUTBOX_CHANNEL,
      sweepMs: deps.options.sweepMs,
      round: () => this.round(),
      onQueued: (listener) => deps.events.onDeliveriesQueued(listener),
      log: deps.log,
      failureMessage: 'Claiming webhook deliveries failed; the sweep tries again',
      listenFailureMessage: 'LISTEN for the webhook outbox failed; relying on the sweep',
    });
  }

  async start(opts: { listen?: ListenFn } = {}): Promise<void> {
    if (this.pump.isRunning) return;
    this.renewTimer = setInterval(() => void this.renewClaims(), Math.max(100, Math.floor(this.deps.options.leaseMs / 3)));
    this.renewTimer.unref();
    await this.pump.start(opts);
  }

  /**
   * Stops claiming, gives back the claims not started yet (another worker takes them at once), and waits
   * up to `graceMs` for attempts in flight to be recorded.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.pump.isRunning) return;
    clearInterval(this.renewTimer);
    // A round still claiming gives its claims back itself when it sees the pump stopped.
    await this.pump.stop({ wait: false });
    const waiting = [...this.queued.values()].flat().map((d) => d.id);
    for (const id of waiting) this.held.delete(id);
    this.queued.clear();
    this.queuedCount = 0;
    await this.repo.releaseClaims(this.deps.db, waiting).catch((err) => this.deps.log.warn({ err }, 'Releasing webhook claims failed'));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }

  /** Attempts running now and claimed deliveries waiting for a slot (tests, metrics). */
  get load() {
    return { active: this.active, queued: this.queuedCount };
  }

  /** Keeps the claims of deliveries still held from expiring (a failure is tried again at the next tick). */
  private async renewClaims(): Promise<void> {
    try {
      await this.repo.renewClaims(this.deps.db, [...this.held], this.deps.options.leaseMs);
    } catch (err) {
      this.deps.log.warn({ err }, 'Renewing webhook claims failed; trying again shortly');
    }
  }

  private wake(): void {
    this.pump.wake();
  }

  /** One round of the pump: claims what fits in the free room and starts it. True when the claim was full. */
  private async round(): Promise<boolean> {
    const { concurrency, perEndpoint, leaseMs } = this.deps.options;
    // Claimed work is bounded: twice the slots, and twice the per-endpoint limit per endpoint.
    const room = 2 * concurrency - this.active - this.queuedCount;
    if (room <= 0) return false;
    const busy = [...this.perKey].filter(([, n]) => n >= 2 * perEndpoint).map(([key]) => key);
    const claimed = await this.repo.claimDeliveries(this.deps.db, {
      limit: room,
      perAccount: concurrency,
      leaseMs,
      excludeEndpointIds: busy.filter((k) => !k.startsWith('url:')),
      excludeUrls: busy.filter((k) => k.startsWith('url:')).map((k) => k.slice(4)),
      // A held claim that expired while the database was away is still this dispatcher's.
      excludeIds: [...this.held],
    });
    if (!this.pump.isRunning) {
      await this.repo.releaseClaims(this.deps.db, claimed.map((d) => d.id)).catch(() => undefined);
      return false;
    }
    for (const d of claimed) {
      this.held.add(d.id);
      const list = this.queued.get(d.account_id) ?? [];
      if (list.length === 0) this.queued.set(d.account_id, list);
      list.push(d);
      this.queuedCount++;
      const key = keyOf(d);
      this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
    }
    this.drain();
    return claimed.length === room;
  }

  /** Starts waiting deliveries while slots are free: one per account per round, endpoint limits kept. */
  private drain(): void {
    const { concurrency, perEndpoint } = this.deps.options;
    let progress = true;
    while (progress && this.active < concurrency && this.queuedCount > 0) {
      progress = false;
      for (const [account, list] of [...this.queued]) {
        if (this.active >= concurrency) break;
        const i = list.findIndex((d) => this.runningFor(keyOf(d)) < perEndpoint);
        if (i < 0) continue;
        const [d] = list.splice(i, 1);
        this.queuedCount--;
        // The account goes to the back of the round-robin order.
        this.queued.delete(account);
        if (list.length > 0) this.queued.set(account, list);
        this.launch(d!);
        progress = true;
      }
    }
  }

  private readonly runningKeys = new Map<string, number>();
  private runningFor(key: string) {
    return this.runningKeys.get(key) ?? 0;
  }

  private launch(d: ClaimedDelivery): void {
    const key = keyOf(d);
    this.active++;
    this.runningKeys.set(key, this.runningFor(key) + 1);
    let released = false;
    // The slots (overall and the endpoint's) are free once the request is over; recording goes on.
    const release = () => {
      if (released) return;
      released = true;
      this.active--;
      this.runningKeys.set(key, this.runningFor(key) - 1);
      if (this.runningFor(key) <= 0) this.runningKeys.delete(key);
      const left = (this.perKey.get(key) ?? 1) - 1;
      if (left > 0) this.perKey.set(key, left);
      else this.perKey.delete(key);
      this.drain();
      if (this.queuedCount < this.deps.options.concurrency) this.wake();
    };
    const run = this.firstAttempt(d, release)
      .catch((err) => this.deps.log.warn({ err, deliveryId: d.id }, 'Webhook first attempt failed; the sweep retries it when its claim expires'))
      .finally(() => {
        release();
        this.held.delete(d.id);
        this.inFlight.delete(run);
      });
    this.inFlight.add(run);
  }

  /** Attempt 1; a failure hands the delivery to its retry workflow (attempt 2 on the backoff schedule). */
  private async firstAttempt(d: ClaimedDelivery, onSent: () => void): Promise<void> {
    const result = await this.deps.deliveries.attemptClaimed(d, { onSent });
    if (result.outcome !== 'retryable') return;
    try {
      await this.deps.workflows.start(webhookDeliveryWorkflowContract, {
        workflowId: webhookDeliveryWorkflowId(d.id),
        input: { deliveryId: d.id, firstAttempt: 2, schedule: webhookRetrySchedule(this.deps.options.retryScale ?? 1) },
        memo: { eventId: d.event_id, endpointId: d.endpoint_id, accountId: d.account_id },
      });
    } catch (err) {
      this.deps.log.warn({ err, deliveryId: d.id }, 'Starting a webhook retry workflow failed; trying again shortly');
      await this.repo.releaseClaims(this.deps.db, [d.id], START_RETRY_MS);
      return;
    }
    await this.repo.markDispatched(this.deps.db, d.id);
  }
}

/** Concurrency key: the endpoint, or the callback URL. */
const keyOf = (d: Pick<ClaimedDelivery, 'endpoint_id' | 'url'>) => d.endpoint_id ?? `url:${d.url}`;
