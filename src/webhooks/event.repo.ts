import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { WebhookDeliveryStatus } from '../db/tables/events';
import { paginate, type PageParams } from '../db/pagination';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export class EventRepo {
  async getEventById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('events').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async listEvents(db: Kysely<DB>, scope: Scope, page: PageParams, filter: { type?: string }) {
    let q = db.selectFrom('events').selectAll().where(inScope(scope));
    if (filter.type) q = q.where('type', '=', filter.type);
    return paginate(db, 'events', q, page);
  }

  async insertEndpoint(
    db: Db,
    row: { id: string; account_id: string; livemode: boolean; url: string; description: string | null; events: string[]; secret: string; metadata: Record<string, string> },
  ) {
    return db
      .insertInto('webhook_endpoints')
      .values({ ...row, events: JSON.stringify(row.events), metadata: JSON.stringify(row.metadata) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async getEndpointById(db: Db, scope: Scope, id: string) {
    return db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where(inScope(scope))
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  async listEndpoints(db: Kysely<DB>, scope: Scope, page: PageParams) {
    const q = db.selectFrom('webhook_endpoints').selectAll().where(inScope(scope)).where('deleted_at', 'is', null);
    return paginate(db, 'webhook_endpoints', q, page);
  }

  /** Enabled endpoints subscribed to `type` (or to everything). */
  async listSubscribedEndpoints(db: Db, scope: Scope, type: string) {
    return db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where(inScope(scope))
      .where('enabled', '=', true)
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`(events @> ${JSON.stringify([type])}::jsonb or events @> '["*"]'::jsonb)`)
      .execute();
  }

  async updateEndpoint(
    db: Db,
    scope: Scope,
    id: string,
    patch: { url?: string; description?: string | null; events?: string[]; enabled?: boolean; secret?: string; previous_secret?: string | null; previous_secret_expires_at?: Date | null; metadata?: Record<string, string>; deleted_at?: Date },
  ) {
    const { events, metadata, ...rest } = patch;
    return db
      .updateTable('webhook_endpoints')
      .set({
        ...rest,
        ...(events ? { events: JSON.stringify(events) } : {}),
        ...(metadata ? { metadata: JSON.stringify(metadata) } : {}),
        updated_at: new Date(),
      })
      .where(inScope(scope))
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /** A delivery with what an attempt needs: the event and the secret to sign with. */
  async getDeliveryForAttempt(db: Db, deliveryId: string) {
    return db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .innerJoin('accounts as a', 'a.id', 'd.account_id')
      .leftJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select([
        'd.id', 'd.account_id', 'd.status', 'd.url', 'd.endpoint_id', 'd.attempt_count',
        'e.id as event_id', 'e.type as event_type', 'e.livemode as event_livemode', 'e.data as event_data', 'e.created_at as event_created_at',
        // The account secret of the event's mode (status callbacks without an endpoint are signed with it).
        sql<string>`case when e.livemode then a.signing_secret else a.test_signing_secret end`.as('signing_secret'),
        sql<string | null>`case when e.livemode then a.previous_signing_secret else a.test_previous_signing_secret end`.as('previous_signing_secret'),
        sql<Date | null>`case when e.livemode then a.previous_signing_secret_expires_at else a.test_previous_signing_secret_expires_at end`.as('previous_signing_secret_expires_at'),
        'w.secret as endpoint_secret', 'w.previous_secret as endpoint_previous_secret', 'w.previous_secret_expires_at as endpoint_previous_secret_expires_at', 'w.enabled as endpoint_enabled', 'w.deleted_at as endpoint_deleted_at',
      ])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
  }

  async getAttempt(db: Db, deliveryId: string, attempt: number) {
    return db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .where('attempt', '=', attempt)
      .executeTakeFirst();
  }

  async setDeliveryStatus(db: Db, deliveryId: string, status: WebhookDeliveryStatus) {
    await db
      .updateTable('webhook_deliveries')
      .set({ status, completed_at: new Date() })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
  }

  /** An endpoint's latest deliveries, newest first. */
  async listRecentDeliveriesForEndpoint(db: Db, scope: Scope, endpointId: string, limit: number) {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where(inScope(scope))
      .where('endpoint_id', '=', endpointId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async listDeliveriesForEvent(db: Db, scope: Scope, eventId: string) {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where(inScope(scope))
      .where('event_id', '=', eventId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async listPendingDeliveriesForEndpoint(db: Db, endpointId: string) {
    return db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).where('status', '=', 'pending').execute();
  }

  async listAttempts(db: Db, deliveryIds: string[]) {
    if (deliveryIds.length === 0) return [];
    return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempt').execute();
  }
}
