import { countsAt, type ConversationFacts } from './conversation-facts';

/**
 * The hourly aggregate's shape (one row per account, mode, agent, version, channel and hour) and how rows add
 * up: counters add, histograms add bucket by bucket, so medians and p95 over any period come from the hourly
 * rows alone (to the bucket's resolution, interpolated inside it). The rates are computed here once, from the
 * sums, by the formulas in conversation-facts.ts.
 */

/** Upper bounds (ms) of the duration histograms' buckets; the last bucket is open. */
export const DURATION_BUCKETS_MS = [
  50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 15_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 86_400_000, 172_800_000, 604_800_000,
];
export const CONFIDENCE_BUCKETS = 10;

export const COUNTERS = [
  'conversations', 'involved', 'resolved', 'resolved_confirmed', 'resolved_assumed', 'reopened', 'durable', 'handed_off', 'human_replied',
  'feedback_up', 'feedback_down', 'customer_messages', 'runs', 'runs_answered', 'runs_handed_off', 'runs_failed', 'sms_messages', 'sms_segments',
] as const;
export type Counter = (typeof COUNTERS)[number];

export const DURATION_HISTOGRAMS = ['run_latency', 'agent_first_response', 'human_first_response', 'agent_resolution', 'human_resolution'] as const;
export type DurationHistogram = (typeof DURATION_HISTOGRAMS)[number];

export const TOOL_OUTCOMES = ['calls', 'ok', 'error', 'timed_out', 'other', 'approval_requested', 'approved', 'rejected'] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

export interface Aggregate {
  counts: Record<Counter, number>;
  handoffReasons: Record<string, number>;
  toolCalls: Record<string, Record<ToolOutcome, number>>;
  histograms: Record<DurationHistogram | 'confidence', number[]>;
  smsCost: number;
}

export function emptyAggregate(): Aggregate {
  return {
    counts: Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Record<Counter, number>,
    handoffReasons: {},
    toolCalls: {},
    histograms: {
      ...(Object.fromEntries(DURATION_HISTOGRAMS.map((h) => [h, new Array<number>(DURATION_BUCKETS_MS.length + 1).fill(0)])) as Record<DurationHistogram, number[]>),
      confidence: new Array<number>(CONFIDENCE_BUCKETS).fill(0),
    },
    smsCost: 0,
  };
}

const durationBucket = (ms: number) => {
  const i = DURATION_BUCKETS_MS.findIndex((b) => ms <= b);
  return i === -1 ? DURATION_BUCKETS_MS.length : i;
};

export function addDuration(a: Aggregate, h: DurationHistogram, ms: number | null) {
  if (ms === null || !Number.isFinite(ms) || ms < 0) return;
  a.histograms[h][durationBucket(ms)]! += 1;
}

/** A conversation's facts as they count at `now`, into the aggregate of the hour it started. */
export function addConversation(a: Aggregate, f: ConversationFacts, now: Date) {
  const c = countsAt(f, now);
  a.counts.conversations += 1;
  if (f.involved) a.counts.involved += 1;
  if (c.resolved) a.counts.resolved += 1;
  if (c.confirmed) a.counts.resolved_confirmed += 1;
  if (c.assumed) a.counts.resolved_assumed += 1;
  if (c.reopened) a.counts.reopened += 1;
  if (c.durable) a.counts.durable += 1;
  if (f.handedOff) {
    a.counts.handed_off += 1;
    const reason = f.handoffReason ?? 'unknown';
    a.handoffReasons[reason] = (a.handoffReasons[reason] ?? 0) + 1;
  }
  if (f.humanReplied) a.counts.human_replied += 1;
  if (f.thumbsUp) a.counts.feedback_up += 1;
  if (f.thumbsDown) a.counts.feedback_down += 1;
  addDuration(a, 'agent_first_response', f.agentFirstResponseMs);
  addDuration(a, 'human_first_response', f.humanFirstResponseMs);
  if (c.resolved) addDuration(a, 'agent_resolution', f.agentResolutionMs);
  addDuration(a, 'human_resolution', f.humanResolutionMs);
}

export interface RunFact {
  status: string;
  answered: boolean;
  handedOff: boolean;
  confidence: number | null;
  latencyMs: number | null;
}

export function addRun(a: Aggregate, r: RunFact) {
  a.counts.runs += 1;
  if (r.answered) a.counts.runs_answered += 1;
  if (r.handedOff) a.counts.runs_handed_off += 1;
  if (r.status === 'failed' || r.status === 'expired') a.counts.runs_failed += 1;
  if (r.latencyMs !== null) addDuration(a, 'run_latency', r.latencyMs);
  if (r.answered && !r.handedOff && r.confidence !== null) {
    a.histograms.confidence[Math.min(CONFIDENCE_BUCKETS - 1, Math.max(0, Math.floor(r.confidence * CONFIDENCE_BUCKETS)))]! += 1;
  }
}

/** A tool call by its final status (approval: asked for by a gated tool; approved / rejected as decided). */
export function addToolCall(a: Aggregate, tool: string, status: string, gated: boolean) {
  const t = (a.toolCalls[tool] ??= Object.fromEntries(TOOL_OUTCOMES.map((o) => [o, 0])) as Record<ToolOutcome, number>);
  t.calls += 1;
  if (status === 'ok') t.ok += 1;
  else if (status === 'error' || status === 'invalid') t.error += 1;
  else if (status === 'timed_out') t.timed_out += 1;
  else if (status !== 'rejected') t.other += 1;
  if (gated) t.approval_requested += 1;
  if (gated && status !== 'rejected' && status !== 'awaiting_approval' && status !== 'expired') t.approved += 1;
  if (status === 'rejected') t.rejected += 1;
}

/** Adds `b` into `a` (rows of several hours, versions or channels into one period). */
export function mergeInto(a: Aggregate, b: Aggregate) {
  for (const c of COUNTERS) a.counts[c] += b.counts[c] ?? 0;
  for (const [r, n] of Object.entries(b.handoffReasons)) a.handoffReasons[r] = (a.handoffReasons[r] ?? 0) + n;
  for (const [tool, outcomes] of Object.entries(b.toolCalls)) {
    const t = (a.toolCalls[tool] ??= Object.fromEntries(TOOL_OUTCOMES.map((o) => [o, 0])) as Record<ToolOutcome, number>);
    for (const o of TOOL_OUTCOMES) t[o] += outcomes[o] ?? 0;
  }
  for (const [h, buckets] of Object.entries(b.histograms)) {
    const into = a.histograms[h as keyof Aggregate['histograms']];
    if (!into) continue;
    buckets.forEach((n, i) => {
      if (i < into.length) into[i]! += n;
    });
  }
  a.smsCost += b.smsCost;
}

/** An hourly or daily row's stored columns (jsonb read as objects, numeric as a decimal string). */
export interface StoredAggregate {
  counts: Record<string, number>;
  handoff_reasons: Record<string, number>;
  tool_calls: Record<string, Record<string, number>>;
  histograms: Record<string, number[]>;
  sms_cost: string;
}

export const aggregateOfRow = (r: StoredAggregate): Aggregate => ({
  counts: r.counts as Aggregate['counts'],
  handoffReasons: r.handoff_reasons,
  toolCalls: r.tool_calls as Aggregate['toolCalls'],
  histograms: r.histograms as Aggregate['histograms'],
  smsCost: Number(r.sms_cost),
});

/** An aggregate as the columns written (jsonb as JSON text; the cost to a millionth). */
export const rowOfAggregate = (a: Aggregate) => ({
  counts: JSON.stringify(a.counts),
  handoff_reasons: JSON.stringify(a.handoffReasons),
  tool_calls: JSON.stringify(a.toolCalls),
  histograms: JSON.stringify(a.histograms),
  sms_cost: Math.round(a.smsCost * 1e6) / 1e6,
});

/** The q-quantile (0..1) of a duration histogram, interpolated inside its bucket; null without values. */
export function quantileOf(buckets: number[], q: number): number | null {
  const total = buckets.reduce((s, n) => s + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    const n = buckets[i]!;
    if (n > 0 && seen + n >= rank) {
      const lo = i === 0 ? 0 : DURATION_BUCKETS_MS[i - 1]!;
      const hi = DURATION_BUCKETS_MS[i] ?? lo * 2;
      return Math.round(lo + ((rank - seen) / n) * (hi - lo));
    }
    seen += n;
  }
  return DURATION_BUCKETS_MS[DURATION_BUCKETS_MS.length - 1]!;
}

const rate = (n: number, d: number) => (d === 0 ? null : Math.round((n / d) * 10_000) / 10_000);

/** The published rates of an aggregate (FORMULAS in conversation-facts.ts); null where the denominator is 0. */
export function ratesOf(a: Aggregate) {
  const c = a.counts;
  const involvement = rate(c.involved, c.conversations);
  const resolution = rate(c.resolved, c.involved);
  return {
    involvement_rate: involvement,
    resolution_rate: resolution,
    automation_rate: involvement === null || resolution === null ? null : rate(c.resolved, c.conversations),
    reopen_rate: rate(c.reopened, c.resolved),
    durable_rate: rate(c.durable, c.resolved),
    handoff_rate: rate(c.handed_off, c.conversations),
  };
}
