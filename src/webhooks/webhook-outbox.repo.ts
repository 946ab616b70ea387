import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { WebhookAttemptOutcome, WebhookDeliveryStatus } from '../db/tables/events';

type Db = Kysely<DB> | Transaction<DB>;

/** The Postgres channel a commit that queued deliveries notifies (the dispatcher LISTENs on it). */
export const OUTBOX_CHANNEL = 'webhook_outbox';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Who an event goes to: the account's subscribed endpoints, one callback URL, or named endpoints. */
export type OutboxTarget = { kind: 'subscribed' } | { kind: 'callback'; url: string } | { kind: 'endpoints'; endpointIds: string[] };

export interface OutboxEventRow {
  id: string;
  account_id: string;
  /** The mode of what emitted the event: only endpoints of the same mode receive it. */
  livemode: boolean;
  type: string;
  data: unknown;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number;
  outcome: WebhookAttemptOutcome;
  error: string | null;
}

/** A claimed delivery with everything its first attempt needs (event, secrets, endpoint state). */
export interface ClaimedDelivery {
  id: string;
  account_id: string;
  endpoint_id: string | null;
  url: string;
  attempt_count: number;
  event_id: string;
  event_type: string;
  event_livemode: boolean;
  event_data: Record<string, unknown>;
  event_created_at: Date;
  /** The account's signing secret, and the replaced one while its rotation grace lasts (callbacks). */
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_signing_secret_expires_at: Date | null;
  endpoint_secret: string | null;
  endpoint_previous_secret: string | null;
  endpoint_previous_secret_expires_at: Date | null;
  endpoint_enabled: boolean | null;
  endpoint_deleted_at: Date | null;
}

/**
 * `derivedId('whd', eventId, key)` of src/domain/ids.ts in SQL (sha256 of the parts joined by NUL,
 * first 24 bytes as base62), so a delivery keeps the id it had when it was derived in JS.
 */
const derivedDeliveryId = (eventId: RawBuilder<unknown>, key: RawBuilder<unknown>) => sql<string>`'whd_' || (
  select string_agg(substr(${BASE62}, get_byte(h.d, i) % 62 + 1, 1), '' order by i)
  from (select sha256(convert_to(${eventId}, 'UTF8') || decode('00', 'hex') || convert_to(${key}, 'UTF8')) as d) h,
    generate_series(0, 23) i)`;

const pendingDispatch = (alias: string) =>
  sql.raw(`${alias}.status = 'pending' and ${alias}.dispatched_at is null and (${alias}.dispatch_lease_until is null or ${alias}.dispatch_lease_until < now())`);

/** An event with its OutboxTarget as columns: a callback URL, named endpoints, or neither (the subscribed endpoints). */
interface EventWithTargets extends OutboxEventRow {
  callback_url: string | null;
  endpoint_ids: string[] | null;
}

/**
 * The one statement that stores events with their deliveries (both insert methods): `ev` the events
 * inserted (one that exists already is skipped, its deliveries were committed with it), `t` their targets,
 * `d` one pending delivery per target, `n` the dispatcher's notification when any was queued. `result`
 * selects what the caller needs; it must read `n` (a plain SELECT CTE that is not read does not run, so
 * there would be no notification). A JSON null `data` is stored as JSON null, as the single insert did.
 */
const eventsWithDeliveries = <R>(events: EventWithTargets[], result: RawBuilder<unknown>) => sql<R>`
  with input as (
    select * from json_to_recordset(${JSON.stringify(events)}::json)
      as x(id text, account_id text, livemode boolean, type text, data json, callback_url text, endpoint_ids text[])
  ), ev as (
    insert into events (id, account_id, livemode, type, data)
    select id, account_id, livemode, type, coalesce(data, 'null'::json) from input
    on conflict (id) do nothing
    returning id, account_id, livemode, type, data, created_at
  ), t as (
    select ev.id as event_id, ev.account_id, ev.livemode, null::text as endpoint_id, i.callback_url as url
    from ev join input i on i.id = ev.id where i.callback_url is not null
    union all
    select ev.id, ev.account_id, ev.livemode, w.id, w.url
    from ev join input i on i.id = ev.id and i.endpoint_ids is not null
    join webhook_endpoints w on w.account_id = ev.account_id and w.livemode = ev.livemode and w.id = any(i.endpoint_ids) and w.deleted_at is null
    union all
    select ev.id, ev.account_id, ev.livemode, w.id, w.url
    from ev join input i on i.id = ev.id and i.callback_url is null and i.endpoint_ids is null
    join webhook_endpoints w on w.account_id = ev.account_id and w.livemode = ev.livemode and w.enabled and w.deleted_at is null
      and (w.events @> jsonb_build_array(ev.type) or w.events @> '["*"]'::jsonb)
  ), d as (
    insert into webhook_deliveries (id, account_id, livemode, event_id, endpoint_id, url, status)
    select ${derivedDeliveryId(sql.ref('t.event_id'), sql`coalesce(t.endpoint_id, t.url)`)}, t.account_id, t.livemode, t.event_id, t.endpoint_id, t.url, 'pending'
    from t
    on conflict (id) do nothing
    returning id
  ), n as (
    select pg_notify(${OUTBOX_CHANNEL}, '') from (select 1 from d limit 1) x
  )
  ${result}`;

/**
 * The transactional outbox of events: an event and its delivery rows are written by one statement (in
 * the caller's transaction, with the state change behind them), and the commit notifies OUTBOX_CHANNEL.
 * The dispatcher claims undispatched deliveries with a lease, fairly between accounts.
 */
export class WebhookOutboxRepo {
  /**
   * Inserts the event and one pending delivery per target, and notifies the dispatcher when any
   * delivery was queued. An event that exists already (a retried emit) is returned as stored, with no
   * new deliveries: its deliveries were committed with it.
   */
  async insertEventWithDeliveries(db: Db, event: OutboxEventRow, target: OutboxTarget) {
    const input: EventWithTargets = {
      ...event,
      callback_url: target.kind === 'callback' ? target.url : null,
      endpoint_ids: target.kind === 'endpoints' ? target.endpointIds : null,
    };
    const result = await eventsWithDeliveries<{ id: string; livemode: boolean; type: string; data: Record<string, unknown>; created_at: Date; deliveries: number; notified: number }>(
      [input],
      sql`select ev.id, ev.livemode, ev.type, ev.data, ev.created_at, (select count(*) from d)::int as deliveries, (select count(*) from n)::int as notified
      from ev`,
    ).execute(db);
    const inserted = result.rows[0];
    if (inserted) return { event: inserted, inserted: true, deliveries: inserted.deliveries };
    const existing = await db.selectFrom('events').select(['id', 'livemode', 'type', 'data', 'created_at']).where('id', '=', event.id).executeTakeFirstOrThrow();
    return { event: existing, inserted: false, deliveries: 0 };
  }

  /**
   * Many events in one statement (a batch round's status changes): each event with its deliveries (to its
   * callback URL, else the account's subscribed endpoints), events that exist already skipped with no new
   * deliveries, one notification. Returns how many events were inserted (by type) and deliveries queued.
   */
  async insertEventsWithDeliveries(db: Db, events: (OutboxEventRow & { callback_url: string | null })[]) {
    if (events.length === 0) return { insertedByType: {} as Record<string, number>, deliveries: 0 };
    const result = await eventsWithDeliveries<{ type: string; inserted: number; deliveries: number }>(
      events.map((e) => ({ ...e, endpoint_ids: null })),
      sql`select ev.type, count(*)::int as inserted, (select count(*) from d)::int as deliveries, (select count(*) from n)::int as notified
      from ev group by ev.type`,
    ).execute(db);
    return {
      insertedByType: Object.fromEntries(result.rows.map((r) => [r.type, r.inserted])),
      deliveries: result.rows[0]?.deliveries ?? 0,
    };
  }

  /** Queues deliveries of a stored event (redelivery) and notifies the dispatcher. */
  async queueDeliveries(db: Db, rows: { id: string; account_id: string; livemode: boolean; event_id: string; endpoint_id: string | null; url: string }[]) {
    if (rows.length === 0) return;
    await db
      .with('d', (qb) =>
        qb
          .insertInto('webhook_deliveries')
          .values(rows.map((r) => ({ ...r, status: 'pending' as const })))
          .onConflict((oc) => oc.column('id').doNothing())
          .returning('id'),
      )
      .selectNoFrom(sql<number>`(select count(*) from (select pg_notify(${OUTBOX_CHANNEL}, '') from (select 1 from d limit 1) x) n)`.as('notified'))
      .execute();
  }

  /**
   * Claims up to `limit` undispatched deliveries for `leaseMs`, at most `perAccount` of each account
   * (accounts in random order, each account's oldest first), skipping rows another dispatcher holds
   * and endpoints (or callback URLs) this dispatcher has enough of already.
   */
  async claimDeliveries(
    db: Db,
    c: { limit: number; perAccount: number; leaseMs: number; excludeEndpointIds: string[]; excludeUrls: string[]; excludeIds?: string[] },
  ): Promise<ClaimedDelivery[]> {
    const result = await sql<ClaimedDelivery>`
      with a as (
        select account_id from (select distinct account_id from webhook_deliveries d where ${pendingDispatch('d')}) x order by random()
      ), c as (
        select x.id from a cross join lateral (
          select d.id from webhook_deliveries d
          where d.account_id = a.account_id and ${pendingDispatch('d')}
            and (d.endpoint_id is null or d.endpoint_id <> all(${c.excludeEndpointIds}::text[]))
            and (d.endpoint_id is not null or d.url <> all(${c.excludeUrls}::text[]))
            and d.id <> all(${c.excludeIds ?? []}::text[])
          order by d.created_at, d.id
          limit ${c.perAccount}
          for update skip locked
        ) x
        limit ${c.limit}
      ), u as (
        update webhook_deliveries d set dispatch_lease_until = now() + ${c.leaseMs} * interval '1 millisecond'
        from c where d.id = c.id
        returning d.id, d.account_id, d.endpoint_id, d.url, d.attempt_count, d.event_id, d.created_at
      )
      select u.id, u.account_id, u.endpoint_id, u.url, u.attempt_count,
        e.id as event_id, e.type as event_type, e.livemode as event_livemode, e.data as event_data, e.created_at as event_created_at,
        case when e.livemode then ac.signing_secret else ac.test_signing_secret end as signing_secret,
        case when e.livemode then ac.previous_signing_secret else ac.test_previous_signing_secret end as previous_signing_secret,
        case when e.livemode then ac.previous_signing_secret_expires_at else ac.test_previous_signing_secret_expires_at end as previous_signing_secret_expires_at,
        w.secret as endpoint_secret, w.previous_secret as endpoint_previous_secret, w.previous_secret_expires_at as endpoint_previous_secret_expires_at, w.enabled as endpoint_enabled, w.deleted_at as endpoint_deleted_at
      from u
      join events e on e.id = u.event_id
      join accounts ac on ac.id = u.account_id
      left join webhook_endpoints w on w.id = u.endpoint_id
      order by u.created_at, u.id`.execute(db);
    return result.rows;
  }

  /**
   * Records one attempt and the delivery's new status in one statement (idempotent per attempt);
   * `dispatched` also takes the delivery out of the outbox (its first attempt settled it).
   */
  async recordAttempt(db: Db, row: AttemptRow, delivery: { status: WebhookDeliveryStatus; dispatched?: boolean }) {
    await db
      .with('a', (qb) =>
        qb.insertInto('webhook_attempts').values(row).onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing()),
      )
      .updateTable('webhook_deliveries')
      .set({
        status: delivery.status,
        attempt_count: sql`greatest(attempt_count, ${row.attempt})`,
        last_status_code: row.status_code,
        last_error: row.error,
        completed_at: delivery.status === 'pending' ? null : new Date(),
        ...(delivery.dispatched ? { dispatched_at: sql`coalesce(dispatched_at, now())`, dispatch_lease_until: null } : {}),
      })
      .where('id', '=', row.delivery_id)
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * Records many first attempts in one statement (the dispatcher's batch): each attempt row, and its
   * delivery's status; `dispatched` rows leave the outbox. Idempotent per (delivery, attempt).
   */
  async recordAttempts(db: Db, rows: (AttemptRow & { status: WebhookDeliveryStatus; dispatched: boolean })[]) {
    if (rows.length === 0) return;
    const values = sql.join(
      rows.map(
        (r) => sql`(${r.delivery_id}::text, ${r.attempt}::int, ${r.started_at}::timestamptz, ${r.status_code}::int, ${r.latency_ms}::int,
          ${r.outcome}::text, ${r.error}::text, ${r.status}::text, ${r.dispatched}::boolean)`,
      ),
    );
    await sql`
      with v (delivery_id, attempt, started_at, status_code, latency_ms, outcome, error, status, dispatched) as (values ${values}),
      a as (
        insert into webhook_attempts (delivery_id, attempt, started_at, status_code, latency_ms, outcome, error)
        select delivery_id, attempt, started_at, status_code, latency_ms, outcome, error from v
        on conflict (delivery_id, attempt) do nothing
      )
      update webhook_deliveries d set
        status = v.status,
        attempt_count = greatest(d.attempt_count, v.attempt),
        last_status_code = v.status_code,
        last_error = v.error,
        completed_at = case when v.status = 'pending' then null else now() end,
        dispatched_at = case when v.dispatched then coalesce(d.dispatched_at, now()) else d.dispatched_at end,
        dispatch_lease_until = case when v.dispatched then null else d.dispatch_lease_until end
      from v
      where d.id = v.delivery_id and d.status = 'pending'`.execute(db);
  }

  /** Takes a delivery out of the outbox: its retry workflow is started (or it ended otherwise). */
  async markDispatched(db: Db, deliveryId: string) {
    await db
      .updateTable('webhook_deliveries')
      .set({ dispatched_at: sql`coalesce(dispatched_at, now())`, dispatch_lease_until: null })
      .where('id', '=', deliveryId)
      .execute();
  }

  /** Extends the claims a live dispatcher still holds (queued, in flight, being recorded) by `leaseMs` from now. */
  async renewClaims(db: Db, deliveryIds: string[], leaseMs: number) {
    if (deliveryIds.length === 0) return;
    await db
      .updateTable('webhook_deliveries')
      .set({ dispatch_lease_until: sql`now() + ${leaseMs} * interval '1 millisecond'` })
      .where('id', 'in', deliveryIds)
      .where('dispatched_at', 'is', null)
      .execute();
  }

  /** Gives a claim back: the delivery is claimable again after `afterMs` (0: at once). */
  async releaseClaims(db: Db, deliveryIds: string[], afterMs = 0) {
    if (deliveryIds.length === 0) return;
    await db
      .updateTable('webhook_deliveries')
      .set({ dispatch_lease_until: afterMs > 0 ? sql`now() + ${afterMs} * interval '1 millisecond'` : null })
      .where('id', 'in', deliveryIds)
      .where('dispatched_at', 'is', null)
      .execute();
  }
}
