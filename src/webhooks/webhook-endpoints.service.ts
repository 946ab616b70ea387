import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { EventRepo } from './event.repo';
import type { PageParams } from '../db/pagination';
import { notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { MAX_SIGNING_SECRET_GRACE_SECONDS, newSigningSecret } from '../domain/signature';
import { scopeOf, type Principal, type Scope } from '../domain/principal';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { cancelDeliverySignal, webhookDeliveryWorkflowId } from '../../workflows/shared/webhooks.contracts';
import type { EventsService } from './events.service';
import { assertOutboundUrl } from '../platform/outbound-http';
import type { ListObject } from '../domain/api-schema';
import { toWebhookEndpointObject, type WebhookEndpointObject } from './webhook-endpoint.schemas';
import { createWithinQuota } from '../accounts/account-quotas';

export interface CreateWebhookEndpointInput {
  principal: Principal;
  url: string;
  events: string[];
  description?: string;
  enabled?: boolean;
  metadata?: Record<string, string>;
}

export class WebhookEndpointsService {
  private readonly repo = new EventRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: WorkflowGateway;
      events: EventsService;
      allowPrivateNetwork: boolean;
      /** Endpoints an account may have (not deleted); unlimited when absent. */
      maxEndpointsPerAccount?: number;
    },
  ) {}

  private checkUrl(principal: Principal, url: string) {
    assertOutboundUrl(url, { allowPrivate: this.deps.allowPrivateNetwork, requireHttps: principal.mode === 'live' });
  }

  async createEndpoint(input: CreateWebhookEndpointInput): Promise<WebhookEndpointObject> {
    this.checkUrl(input.principal, input.url);
    const quota = { accountId: input.principal.accountId, kind: 'webhook_endpoints' as const, limit: this.deps.maxEndpointsPerAccount };
    const row = await createWithinQuota(this.deps.db, quota, (trx) => this.repo.insertEndpoint(trx, {
      id: newId(IdPrefix.webhookEndpoint),
      account_id: input.principal.accountId,
      livemode: input.principal.mode === 'live',
      url: input.url,
      description: input.description ?? null,
      events: [...new Set(input.events)],
      secret: newSigningSecret(),
      metadata: input.metadata ?? {},
    }));
    const final = input.enabled === false ? await this.repo.updateEndpoint(this.deps.db, scopeOf(input.principal), row.id, { enabled: false }) : row;
    return toWebhookEndpointObject(final!, true);
  }

  async getEndpoint(input: Scope & { endpointId: string }) {
    const row = await this.repo.getEndpointById(this.deps.db, scopeOf(input), input.endpointId);
    if (!row) throw notFound('webhook endpoint', input.endpointId);
    return row;
  }

  async listEndpoints(input: Scope & { page: PageParams }): Promise<ListObject<WebhookEndpointObject>> {
    const page = await this.repo.listEndpoints(this.deps.db, scopeOf(input), input.page);
    return { object: 'list' as const, data: page.data.map((r) => toWebhookEndpointObject(r)), has_more: page.has_more };
  }

  async updateEndpoint(input: {
    principal: Principal;
    endpointId: string;
    patch: { url?: string; events?: string[]; enabled?: boolean; description?: string | null; metadata?: Record<string, string> };
  }): Promise<WebhookEndpointObject> {
    if (input.patch.url) this.checkUrl(input.principal, input.patch.url);
    const { events, ...rest } = input.patch;
    const row = await this.repo.updateEndpoint(this.deps.db, scopeOf(input.principal), input.endpointId, {
      ...rest,
      ...(events ? { events: [...new Set(events)] } : {}),
    });
    if (!row) throw notFound('webhook endpoint', input.endpointId);
    if (input.patch.enabled === false) await this.cancelPendingDeliveries(row.id);
    return toWebhookEndpointObject(row);
  }

  async deleteEndpoint(input: Scope & { endpointId: string }) {
    const row = await this.repo.updateEndpoint(this.deps.db, scopeOf(input), input.endpointId, {
      deleted_at: new Date(),
      enabled: false,
    });
    if (!row) throw notFound('webhook endpoint', input.endpointId);
    await this.cancelPendingDeliveries(row.id);
    return { id: row.id, object: 'webhook_endpoint' as const, deleted: true as const };
  }

  /**
   * Replaces the signing secret. The old one keeps signing beside the new one (two v1= in the header) for
   * `gracePeriodSeconds` (default and maximum 24 h, as Stripe allows; 0 = at once), so receivers can
   * switch without dropping a delivery.
   */
  async rotateSecret(input: Scope & { endpointId: string; gracePeriodSeconds?: number }): Promise<WebhookEndpointObject> {
    const current = await this.getEndpoint(input);
    const grace = input.gracePeriodSeconds ?? MAX_SIGNING_SECRET_GRACE_SECONDS;
    const row = await this.repo.updateEndpoint(this.deps.db, scopeOf(input), input.endpointId, {
      secret: newSigningSecret(),
      previous_secret: grace > 0 ? current.secret : null,
      previous_secret_expires_at: grace > 0 ? new Date(Date.now() + grace * 1000) : null,
    });
    if (!row) throw notFound('webhook endpoint', input.endpointId);
    return toWebhookEndpointObject(row, true);
  }

  /** Sends a signed `webhook_endpoint.test` event to this endpoint only, subscribed or not. */
  async sendTestEvent(input: Scope & { endpointId: string }) {
    const row = await this.getEndpoint(input);
    return this.deps.events.emit({
      ...scopeOf(input),
      type: 'webhook_endpoint.test',
      data: toWebhookEndpointObject(row),
      endpointIds: [row.id],
    });
  }

  /** Wakes the retry loops of this endpoint's pending deliveries so they end as cancelled now. */
  private async cancelPendingDeliveries(endpointId: string) {
    const pending = await this.repo.listPendingDeliveriesForEndpoint(this.deps.db, endpointId);
    await Promise.all(pending.map((d) => this.deps.workflows.signalIfRunning(webhookDeliveryWorkflowId(d.id), cancelDeliverySignal)));
  }
}
