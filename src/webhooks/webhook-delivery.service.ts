import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { EventRepo } from './event.repo';
import { notFound } from '../domain/errors';
import type { Metrics } from '../observability/metrics';
import { toEventObject } from './event.schemas';
import { OutboundNetworkError, postSignedJson } from '../platform/outbound-http';
import { activeSigningSecrets } from '../domain/signature';

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

/**
 * One signed POST of an event to a delivery's URL, recorded as an attempt. 2xx is success; anything else
 * (status, timeout, network error) is a retryable failure the workflow schedules again. Idempotent per
 * (delivery, attempt): an activity retried after a crash returns the recorded outcome instead of re-sending.
 */
export class WebhookDeliveryService {
  private readonly repo = new EventRepo();

  constructor(private readonly deps: { db: Kysely<DB>; timeoutMs: number; allowPrivateNetwork: boolean; metrics?: Metrics }) {}

  async attemptDelivery(input: AttemptWebhookDeliveryInput): Promise<AttemptWebhookDeliveryResult> {
    const { db } = this.deps;
    const d = await this.repo.getDeliveryForAttempt(db, input.deliveryId);
    if (!d) throw notFound('webhook delivery', input.deliveryId);
    if (d.status === 'delivered') return { outcome: 'delivered', statusCode: null };
    if (d.status === 'cancelled') return { outcome: 'cancelled', statusCode: null };
    if (d.endpoint_id && (!d.endpoint_enabled || d.endpoint_deleted_at)) {
      await this.repo.setDeliveryStatus(db, d.id, 'cancelled');
      return { outcome: 'cancelled', statusCode: null };
    }
    const recorded = await this.repo.getAttempt(db, d.id, input.attempt);
    if (recorded) {
      return { outcome: recorded.outcome === 'delivered' ? 'delivered' : 'retryable', statusCode: recorded.status_code };
    }

    const body = JSON.stringify(
      toEventObject({ id: d.event_id, type: d.event_type, created_at: d.event_created_at, data: d.event_data }),
    );
    const secret = d.endpoint_secret ?? activeSigningSecrets(d);
    const startedAt = input.scheduledAt ?? new Date();
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
        headers: { 'webhook-id': d.id, 'webhook-attempt': String(input.attempt) },
      });
      statusCode = res.status;
      latencyMs = res.latencyMs;
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      latencyMs = Date.now() - sendStarted;
      error = err instanceof OutboundNetworkError ? `${err.kind}: ${err.message}` : `network: ${(err as Error).message}`;
    }
    const delivered = error === null;
    this.deps.metrics?.webhookAttempts.inc({ outcome: delivered ? 'delivered' : 'failed' });
    await this.repo.recordAttempt(
      db,
      {
        delivery_id: d.id,
        attempt: input.attempt,
        started_at: startedAt,
        status_code: statusCode,
        latency_ms: latencyMs,
        outcome: delivered ? 'delivered' : 'retryable',
        error,
      },
      { status: delivered ? 'delivered' : input.isLastAttempt ? 'failed' : 'pending' },
    );
    return { outcome: delivered ? 'delivered' : 'retryable', statusCode };
  }
}
