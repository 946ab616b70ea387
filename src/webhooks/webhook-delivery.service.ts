import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { EventRepo } from './event.repo';
import { notFound } from '../domain/errors';
import type { Metrics } from '../observability/metrics';
import { toEventObject } from './event.schemas';
import { OutboundNetworkError, postSignedJson } from '../platform/outbound-http';
import { activeSigningSecrets } from '../domain/signature';
import type { WebhookDeliveryStatus } from '../db/tables/events';
import { GroupWriter } from './group-writer';
import { WebhookOutboxRepo, type AttemptRow, type ClaimedDelivery } from './webhook-outbox.repo';

export interface AttemptWebhookDeliveryInput {
  deliveryId: string;
  attempt: number;
  /** No retry follows this attempt: a failure marks the delivery failed. */
  isLastAttempt: boolean;
  /** When the attempt was scheduled (Temporal's clock, so time-skipping tests see the real schedule). */
  scheduledAt?: Date;
}

export interface AttemptWebhookDeliveryResult {
  outcome: 'delivered' | 'retryable' | 'cancelled';
  statusCode: number | null;
}

type DeliveryForAttempt = Pick<
  ClaimedDelivery,
  'id' | 'url' | 'endpoint_id' | 'event_id' | 'event_type' | 'event_livemode' | 'event_data' | 'event_created_at' | 'signing_secret' | 'previous_signing_secret' | 'previous_signing_secret_expires_at' | 'endpoint_secret' | 'endpoint_previous_secret' | 'endpoint_previous_secret_expires_at' | 'endpoint_enabled' | 'endpoint_deleted_at'
>;

/**
 * One signed POST of an event to a delivery's URL, recorded as an attempt. 2xx is success; anything else
 * (status, timeout, network error) is a retryable failure the retry workflow schedules again. The
 * dispatcher makes attempt 1 (`attemptClaimed`); the retry workflow makes the others (`attemptDelivery`),
 * idempotent per (delivery, attempt): an activity retried after a crash returns the recorded outcome.
 */
export class WebhookDeliveryService {
  private readonly repo = new EventRepo();
  private readonly outbox = new WebhookOutboxRepo();

  /** First attempts (the dispatcher's, many at once) are recorded in groups: one statement per group. */
  private readonly firstAttempts: GroupWriter<AttemptRow & { status: WebhookDeliveryStatus; dispatched: boolean }>;

  constructor(private readonly deps: { db: Kysely<DB>; timeoutMs: number; allowPrivateNetwork: boolean; metrics?: Metrics }) {
    this.firstAttempts = new GroupWriter((rows) =>
      this.outbox.recordAttempts(deps.db, rows.sort((a, b) => (a.delivery_id < b.delivery_id ? -1 : 1))),
    );
  }

  async attemptDelivery(input: AttemptWebhookDeliveryInput): Promise<AttemptWebhookDeliveryResult> {
    const { db } = this.deps;
    const d = await this.repo.getDeliveryForAttempt(db, input.deliveryId);
    if (!d) throw notFound('webhook delivery', input.deliveryId);
    if (d.status === 'delivered') return { outcome: 'delivered', statusCode: null };
    if (d.status === 'cancelled') return { outcome: 'cancelled', statusCode: null };
    if (await this.cancelIfEndpointGone(d)) return { outcome: 'cancelled', statusCode: null };
    const recorded = await this.repo.getAttempt(db, d.id, input.attempt);
    if (recorded) {
      return { outcome: recorded.outcome === 'delivered' ? 'delivered' : 'retryable', statusCode: recorded.status_code };
    }
    return this.send(d, input.attempt, input.scheduledAt ?? new Date(), { status: input.isLastAttempt ? 'failed' : 'pending' });
  }

  /**
   * The first attempt of a delivery the dispatcher claimed (row loaded with the claim). A delivery whose
   * first attempt is recorded already (its dispatcher died before handing it on) is not sent again.
   * `onSent` runs once the request is over (before it is recorded): the endpoint's slot is free again.
   */
  async attemptClaimed(d: ClaimedDelivery, opts: { onSent?: () => void } = {}): Promise<AttemptWebhookDeliveryResult> {
    if (await this.cancelIfEndpointGone(d)) return { outcome: 'cancelled', statusCode: null };
    if (d.attempt_count >= 1) {
      const recorded = await this.repo.getAttempt(this.deps.db, d.id, 1);
      if (recorded) return { outcome: recorded.outcome === 'delivered' ? 'delivered' : 'retryable', statusCode: recorded.status_code };
    }
    return this.send(d, 1, new Date(), { status: 'pending', fromDispatcher: true, onSent: opts.onSent });
  }

  /** Ends a delivery `failed` (its retry schedule ran out while its attempts could not run). */
  async failDelivery(input: { deliveryId: string }): Promise<void> {
    await this.repo.setDeliveryStatus(this.deps.db, input.deliveryId, 'failed');
  }

  private async cancelIfEndpointGone(d: Pick<DeliveryForAttempt, 'id' | 'endpoint_id' | 'endpoint_enabled' | 'endpoint_deleted_at'>) {
    if (!d.endpoint_id || (d.endpoint_enabled && !d.endpoint_deleted_at)) return false;
    await this.repo.setDeliveryStatus(this.deps.db, d.id, 'cancelled');
    return true;
  }

  private async send(
    d: DeliveryForAttempt,
    attempt: number,
    startedAt: Date,
    onFailure: { status: 'pending' | 'failed'; fromDispatcher?: boolean; onSent?: () => void },
  ): Promise<AttemptWebhookDeliveryResult> {
    const body = JSON.stringify(toEventObject({ id: d.event_id, livemode: d.event_livemode, type: d.event_type, created_at: d.event_created_at, data: d.event_data }));
    const secret = d.endpoint_secret
      ? activeSigningSecrets({ signing_secret: d.endpoint_secret, previous_signing_secret: d.endpoint_previous_secret, previous_signing_secret_expires_at: d.endpoint_previous_secret_expires_at })
      : activeSigningSecrets(d);
    const sendStarted = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let latencyMs = 0;
    try {
      const res = await postSignedJson({
        url: d.url,
        secret,
        body,
        timeoutMs: this.deps.timeoutMs,
        allowPrivate: this.deps.allowPrivateNetwork,
        maxBodyBytes: 2048,
        // A receiver closing an idle keep-alive connection must not cost this attempt (and a retry hours later).
        retryStaleConnection: true,
        headers: { 'webhook-id': d.id, 'webhook-attempt': String(attempt) },
      });
      statusCode = res.status;
      latencyMs = res.latencyMs;
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      latencyMs = Date.now() - sendStarted;
      error = err instanceof OutboundNetworkError ? `${err.kind}: ${err.message}` : `network: ${(err as Error).message}`;
    }
    onFailure.onSent?.();
    const delivered = error === null;
    this.deps.metrics?.webhookAttempts.inc({ outcome: delivered ? 'delivered' : 'failed' });
    const row: AttemptRow = {
      delivery_id: d.id,
      attempt,
      started_at: startedAt,
      status_code: statusCode,
      latency_ms: latencyMs,
      outcome: delivered ? 'delivered' : 'retryable',
      error,
    };
    // The request went out: recording it is retried through a database blip (up to RECORD_RETRY_MS), as
    // an attempt that is not recorded is sent again.
    await untilRecorded(() =>
      onFailure.fromDispatcher
        ? // Delivered leaves the outbox now; a failure leaves it once its retry workflow is started.
          this.firstAttempts.add({ ...row, status: delivered ? 'delivered' : 'pending', dispatched: delivered })
        : this.outbox.recordAttempt(this.deps.db, row, { status: delivered ? 'delivered' : onFailure.status }),
    );
    return { outcome: delivered ? 'delivered' : 'retryable', statusCode };
  }
}

/** How long an attempt already sent keeps trying to be recorded (inside the 60 s claim and the 30 s local activity, with a 10 s request). */
const RECORD_RETRY_MS = 15_000;

async function untilRecorded(write: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + RECORD_RETRY_MS;
  for (let wait = 200; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await write();
    } catch (err) {
      if (Date.now() + wait > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
