/**
 * The batch phase of `npm run bench:sms`: BENCH_BATCHES (10) POST /v1/message_batches of
 * BENCH_BATCH_RECIPIENTS (10,000) each, sent one after the other, then the wait until every message is
 * `delivered` (or nothing moved for the stall time). Each recipient's body carries a token of its own
 * ("Batch b-i"), the message's identity at the simulator: lost = accepted recipients whose token never
 * reached the simulator, duplicated = submits beyond one per token.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema';
import type { ApiClient } from '../test/support/http';
import type { SmscSimulator } from '../test/support/smsc-simulator';
import { uncounted } from './sms-profile';
import { round } from './support';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const RECIPIENTS = Number(process.env.BENCH_BATCH_RECIPIENTS ?? 10_000);
/** Area codes for distinct valid recipients (10,000 per code: +1 NPA 555 xxxx). */
const AREA_CODES = ['415', '212', '310', '646', '702', '917', '206', '303', '512', '617', '305', '404', '213', '718', '312'];

export interface BatchPhaseDeps {
  call: ApiClient;
  db: Kysely<DB>;
  smsc: SmscSimulator;
  sender: string;
  stallMs: number;
  /** Postgres round trips of both processes since the last reset (the bench's own polls not counted). */
  resetRoundTrips: () => void;
  roundTrips: () => Promise<number>;
}

export async function runBatchPhase(deps: BatchPhaseDeps) {
  const { call, db, smsc } = deps;
  const submitsBefore = smsc.submits.length;
  const total = BATCHES * RECIPIENTS;
  if (total > AREA_CODES.length * 10_000) throw new Error(`At most ${AREA_CODES.length * 10_000} recipients`);
  const recipient = (n: number) => `+1${AREA_CODES[Math.floor(n / 10_000)]}555${String(n % 10_000).padStart(4, '0')}`;

  deps.resetRoundTrips();
  const started = performance.now();
  const startedWall = Date.now();
  let accepted = 0;
  const refused: unknown[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => ({ to: recipient(b * RECIPIENTS + i), variables: { n: `${b}-${i}` } }));
    const res = await call('POST', '/v1/message_batches', { from: deps.sender, body: 'Batch {{n}}', recipients });
    if (res.status === 202) accepted += res.body.recipients;
    else refused.push(res.body);
  }
  const acceptedSeconds = (performance.now() - started) / 1000;

  const statusCounts = () =>
    uncounted(async () => {
      const rows = await db
        .selectFrom('messages')
        .select(['status', sql<number>`count(*)::int`.as('n')])
        .where('message_batch_id', 'is not', null)
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
    });
  let statuses = await statusCounts();
  let lastChange = Date.now();
  while ((statuses.delivered ?? 0) < accepted && Date.now() - lastChange < deps.stallMs) {
    await new Promise((r) => setTimeout(r, 250));
    const next = await statusCounts();
    if (JSON.stringify(next) !== JSON.stringify(statuses)) lastChange = Date.now();
    statuses = next;
  }
  const delivered = statuses.delivered ?? 0;
  const endedWall = delivered === accepted ? Date.now() : lastChange;
  const roundTrips = await deps.roundTrips();

  const latency = await uncounted(() =>
    sql<{ p50: number; p95: number }>`
      select percentile_cont(0.5) within group (order by extract(epoch from m.sent_at - b.created_at) * 1000) as p50,
             percentile_cont(0.95) within group (order by extract(epoch from m.sent_at - b.created_at) * 1000) as p95
      from messages m join message_batches b on b.id = m.message_batch_id where m.sent_at is not null`.execute(db),
  );
  const texts = smsc.submits.slice(submitsBefore).map((s) => s.text);
  const distinct = new Set(texts).size;
  const seen = new Set<string>();
  const twice = [...new Set(texts.filter((t) => seen.has(t) || (seen.add(t), false)))].slice(0, 3);
  // Where the journal left a few messages that were not delivered or went out twice (diagnosis).
  const journalOf = (where: ReturnType<typeof sql<boolean>>) =>
    uncounted(() =>
      sql<{ id: string; status: string; attempts: unknown }>`
        select m.id, m.status, (select json_agg(json_build_object('attempt', a.attempt, 'state', a.state, 'carrier', a.carrier, 'error', a.error_code,
          'started', a.started_at, 'finished', a.finished_at) order by a.attempt) from sms_submit_attempts a where a.message_id = m.id) as attempts
        from messages m where m.message_batch_id is not null and ${where} limit 3`.execute(db),
    ).then((r) => r.rows);
  const notDeliveredSample = await journalOf(sql<boolean>`m.status <> 'delivered'`);
  const duplicatedSample = twice.length ? await journalOf(sql<boolean>`m.body = any(${twice}::text[])`) : [];
  return {
    batches: BATCHES,
    recipients_per_batch: RECIPIENTS,
    accepted,
    refused: refused.slice(0, 3),
    accepted_seconds: round(acceptedSeconds, 2),
    delivered,
    all_delivered_seconds: delivered === accepted ? round((endedWall - startedWall) / 1000, 1) : null,
    delivered_per_second: round(delivered / ((endedWall - startedWall) / 1000)),
    accept_to_sent_ms: { p50: round(Number(latency.rows[0]?.p50 ?? 0)), p95: round(Number(latency.rows[0]?.p95 ?? 0)) },
    p95_accept_to_sent_ms: round(Number(latency.rows[0]?.p95 ?? 0)),
    db_round_trips_per_message: round(roundTrips / Math.max(1, accepted), 2),
    statuses,
    lost: accepted - distinct,
    duplicated: texts.length - distinct,
    simulator: { submit_sm: texts.length, distinct_messages: distinct },
    not_delivered_sample: notDeliveredSample,
    duplicated_sample: duplicatedSample,
  };
}
