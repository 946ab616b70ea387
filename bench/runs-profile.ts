/**
 * Bench-only instrumentation of `npm run bench:runs`, applied from outside the services (no source edits):
 * every Postgres round trip (pg.Client#query) counted and timed and attributed, through AsyncLocalStorage,
 * to the API call or run step it belongs to; and each run's timeline (API before the workflow start, the
 * start call, Temporal's dispatch to the first step, each step, and the wait after the last step).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Runtime } from '../src/app/runtime';
import { percentile, round } from './support';

interface Scope {
  label: string;
  /** The run's timeline, when the scope belongs to one POST. */
  timeline?: Timeline;
}

interface Timeline {
  postStart: number;
  startCall?: [number, number];
  steps: { name: string; start: number; end: number }[];
  waitEnd?: number;
}

const als = new AsyncLocalStorage<Scope>();
const queries = new Map<string, { count: number; ms: number }>();
/** With BENCH_PROFILE_SQL=1: round trips per place and statement (its first words), to find repeats. */
const statements = new Map<string, number>();
const detail = process.env.BENCH_PROFILE_SQL === '1';
const timelines = new Map<string, Timeline>();
let enabled = false;

function wrap<T extends object, K extends keyof T>(target: T, key: K, around: (call: () => Promise<unknown>, args: unknown[]) => Promise<unknown>) {
  const original = target[key] as unknown as (...args: unknown[]) => Promise<unknown>;
  (target as Record<K, unknown>)[key] = function (this: unknown, ...args: unknown[]) {
    return around(() => original.apply(this, args), args);
  };
}

/** Installs the counters (once per process); nothing is recorded until `startProfile()`. */
export function instrument(runtime: Runtime) {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    const result = query.apply(this, args);
    const label = als.getStore()?.label ?? 'other';
    if (enabled && result && typeof (result as Promise<unknown>).then === 'function') {
      const done = () => {
        const q = queries.get(label) ?? { count: 0, ms: 0 };
        q.count++;
        q.ms += performance.now() - t;
        queries.set(label, q);
        if (detail) {
          const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text ?? '?');
          const key = `${label}: ${text.replace(/\s+/g, ' ').slice(0, 70)}`;
          statements.set(key, (statements.get(key) ?? 0) + 1);
        }
      };
      (result as Promise<unknown>).then(done, done);
    }
    return result;
  };

  const { services, gateway } = runtime;
  wrap(services.conversations, 'postMessage', (call) => als.run({ label: 'api.post_message', timeline: { postStart: performance.now(), steps: [] } }, call));
  wrap(gateway, 'start', async (call, args) => {
    const scope = als.getStore();
    const t = performance.now();
    try {
      return await call();
    } finally {
      const runId = (args[1] as { input?: { runId?: string } })?.input?.runId;
      if (scope?.timeline && runId) {
        scope.timeline.startCall = [t, performance.now()];
        timelines.set(runId, scope.timeline);
      }
    }
  });
  wrap(services.runs, 'waitForRun', async (call) => {
    const scope = als.getStore();
    try {
      return await als.run({ label: 'api.wait_for_run', timeline: scope?.timeline }, call);
    } finally {
      if (scope?.timeline) scope.timeline.waitEnd = performance.now();
    }
  });
  for (const step of ['startRun', 'retrieveKnowledge', 'planNextStep', 'finishRun'] as const) {
    wrap(services.runSteps, step, async (call, args) => {
      const t = performance.now();
      try {
        return await als.run({ label: `step.${step}` }, call);
      } finally {
        timelines.get((args[0] as { runId: string }).runId)?.steps.push({ name: step, start: t, end: performance.now() });
      }
    });
  }
}

export function startProfile() {
  queries.clear();
  timelines.clear();
  statements.clear();
  enabled = true;
}

const median = (xs: number[]) => round(percentile([...xs].sort((a, b) => a - b), 50), 1);

/** Round trips and DB time per run by where they happen, and the median timeline of a run (ms). */
export function stopProfile(runs: number) {
  enabled = false;
  const roundTrips: Record<string, { per_run: number; db_ms_per_run: number }> = {};
  let total = 0;
  for (const [label, q] of [...queries].sort()) {
    if (q.count / runs < 0.05) continue;
    roundTrips[label] = { per_run: round(q.count / runs, 1), db_ms_per_run: round(q.ms / runs, 1) };
    total += q.count;
  }
  const parts: Record<string, number[]> = {};
  const add = (k: string, v: number) => (parts[k] ??= []).push(v);
  for (const t of timelines.values()) {
    if (!t.startCall || !t.waitEnd || t.steps.length === 0) continue;
    const steps = [...t.steps].sort((a, b) => a.start - b.start);
    add('api_until_workflow_start', t.startCall[0] - t.postStart);
    add('workflow_start_call', t.startCall[1] - t.startCall[0]);
    add('start_to_first_step', steps[0]!.start - t.startCall[1]);
    steps.forEach((s, i) => {
      add(`step.${s.name}`, s.end - s.start);
      if (i > 0) add('between_steps', s.start - steps[i - 1]!.end);
    });
    // Negative when the API answers before the last step returns (it wakes on the completed status).
    add('response_minus_last_step_end', t.waitEnd - steps.at(-1)!.end);
    add('total', t.waitEnd - t.postStart);
  }
  const timeline = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(k === 'between_steps' ? sumPerRun(v, parts.total!.length) : v)]));
  const sql = detail ? Object.fromEntries([...statements].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, round(n / runs, 1)])) : undefined;
  return { db_round_trips_per_run: round(total / runs, 1), by_place: roundTrips, timeline_median_ms: timeline, ...(sql ? { statements_per_run: sql } : {}) };
}

/** `between_steps` has one entry per gap; the median of a run's gaps summed is more telling. */
function sumPerRun(gaps: number[], runs: number): number[] {
  const per = Math.max(1, Math.round(gaps.length / Math.max(1, runs)));
  const sums: number[] = [];
  for (let i = 0; i < gaps.length; i += per) sums.push(gaps.slice(i, i + per).reduce((a, b) => a + b, 0));
  return sums;
}
