import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import { smsOfConversationMessage } from '../channels/sms/sms-reply.channel';
import { conversationFacts, DURABLE_AFTER_MS, HOUR_MS, type Role } from './conversation-facts';
import { addConversation, addRun, addToolCall, emptyAggregate, rowOfAggregate, type Aggregate } from './hourly-metrics';
import { DailyRollup } from './daily-rollup';
import { RollupRepo } from './rollup.repo';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { ANALYTICS_ROLLUP_EVERY, ANALYTICS_ROLLUP_SCHEDULE_ID, ANALYTICS_ROLLUP_WORKFLOW_ID, analyticsRollupWorkflowContract } from '../../workflows/shared/analytics.contracts';

/** A few minutes of overlap: what committed just before a tick with an older timestamp is still seen. */
const WATERMARK_OVERLAP_MS = 2 * 60_000;

export const hourOf = (d: Date) => new Date(Math.floor(d.getTime() / HOUR_MS) * HOUR_MS);

interface Key {
  account_id: string;
  livemode: boolean;
  agent_id: string;
  agent_version: number;
  channel: string;
}
const keyOf = (k: Key) => `${k.account_id}\u0000${k.livemode}\u0000${k.agent_id}\u0000${k.agent_version}\u0000${k.channel}`;

/**
 * The hourly rollup (docs/decisions/analytics-formulas-and-rollups.md). Rolling an hour recomputes, for every
 * account, the facts of the conversations that started in it and the aggregates of everything that happened in
 * it, from the raw tables, and replaces that hour's rows in one transaction: re-running an hour gives the same
 * rows, and a late event (a run finishing after its hour was rolled) lands in its hour when it is rolled again.
 * `rollUpDue` (the Temporal schedule's activity) rolls the hours changed since the last watermark and those
 * whose resolutions came due or became durable with time.
 */
export class RollupService {
  private readonly repo = new RollupRepo();
  private readonly days = new DailyRollup();

  constructor(private readonly deps: { db: Kysely<DB>; log?: Logger; clock?: () => Date; workflows?: WorkflowGateway }) {}

  /** The Temporal schedule that runs the rollup every few minutes (overlaps skipped); created or updated at worker start. */
  async ensureSchedule() {
    await this.deps.workflows?.upsertSchedule(analyticsRollupWorkflowContract, {
      scheduleId: ANALYTICS_ROLLUP_SCHEDULE_ID,
      spec: { intervals: [{ every: ANALYTICS_ROLLUP_EVERY }] },
      workflowId: ANALYTICS_ROLLUP_WORKFLOW_ID,
      input: {},
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10m' },
    });
  }

  private now() {
    return this.deps.clock?.() ?? new Date();
  }

  /** Rolls one hour (any instant inside it) as of `now`. */
  async rollUpHour(input: { hour: Date; now?: Date }): Promise<{ hour: string; rows: number; conversations: number }> {
    const from = hourOf(input.hour);
    const to = new Date(from.getTime() + HOUR_MS);
    const now = input.now ?? this.now();
    return this.deps.db.transaction().execute(async (tx) => {
      const aggregates = new Map<string, { key: Key; agg: Aggregate }>();
      const at = (k: Key) => {
        const id = keyOf(k);
        let slot = aggregates.get(id);
        if (!slot) aggregates.set(id, (slot = { key: { account_id: k.account_id, livemode: k.livemode, agent_id: k.agent_id, agent_version: k.agent_version, channel: k.channel }, agg: emptyAggregate() }));
        return slot.agg;
      };

      const conversations = await this.repo.conversationsStartedIn(tx, from, to);
      const ids = conversations.map((c) => c.id);
      const [messages, handoffs, feedback, windows] = await Promise.all([
        this.repo.messagesOf(tx, ids), this.repo.handoffsOf(tx, ids), this.repo.feedbackOf(tx, ids),
        this.repo.windowsOf(tx, [...new Set(conversations.map((c) => c.account_id))]),
      ]);
      const group = <T extends { conversation_id: string }>(rows: T[]) => {
        const m = new Map<string, T[]>();
        for (const r of rows) (m.get(r.conversation_id) ?? m.set(r.conversation_id, []).get(r.conversation_id)!).push(r);
        return m;
      };
      const byMessages = group(messages), byHandoffs = group(handoffs), byFeedback = group(feedback);
      const factRows = [];
      for (const c of conversations) {
        const facts = conversationFacts({
          createdAt: c.created_at,
          closedAt: c.closed_at,
          handedOffNow: c.status === 'handed_off',
          messages: (byMessages.get(c.id) ?? []).map((m) => ({ role: m.role as Role, at: m.created_at })),
          handoffs: (byHandoffs.get(c.id) ?? []).map((h) => ({ at: h.at, reason: h.reason ?? 'unknown' })),
          feedback: (byFeedback.get(c.id) ?? []).map((f) => ({ rating: f.rating, at: f.created_at })),
        }, (windows.get(c.account_id) ?? 24) * HOUR_MS);
        addConversation(at(c), facts, now);
        factRows.push({
          conversation_id: c.id, account_id: c.account_id, livemode: c.livemode, agent_id: c.agent_id, agent_version: c.agent_version, channel: c.channel,
          started_at: c.created_at, resolution: facts.resolution, resolved_at: facts.resolvedAt, durable_at: facts.resolvedAt && new Date(facts.resolvedAt.getTime() + DURABLE_AFTER_MS), reopened_at: facts.reopenedAt,
        });
      }
      await this.repo.upsertFacts(tx, factRows);

      for (const r of await this.repo.runsStartedIn(tx, from, to)) {
        addRun(at(r), { status: r.status, answered: r.answered, handedOff: r.handed_off, confidence: r.confidence, latencyMs: r.latency_ms });
      }
      for (const t of await this.repo.toolCallsOfRunsIn(tx, from, to)) addToolCall(at(t), t.tool, t.status, t.gated);
      for (const m of await this.repo.customerMessagesIn(tx, from, to)) at(m).counts.customer_messages += m.n;
      const replies = await this.repo.smsRepliesIn(tx, from, to);
      const sms = new Map((await this.repo.smsByIds(tx, replies.map((r) => smsOfConversationMessage(r.id)))).map((s) => [s.id, s]));
      for (const r of replies) {
        const s = sms.get(smsOfConversationMessage(r.id));
        if (!s) continue;
        const a = at(r);
        a.counts.sms_messages += 1;
        a.counts.sms_segments += s.segments;
        a.smsCost += s.price ? Number(s.price) : 0;
      }

      const rows = [...aggregates.values()].map(({ key, agg }) => ({ ...key, ...rowOfAggregate(agg) }));
      const before = await this.repo.replaceHour(tx, from, rows);
      // The local day holding this hour, summed again for every account whose rows it had or has.
      for (const accountId of new Set([...before, ...rows.map((r) => r.account_id)])) await this.days.rollDayOf(tx, accountId, from);
      return { hour: from.toISOString(), rows: rows.length, conversations: conversations.length };
    });
  }

  /**
   * Rolls every hour changed since the last watermark (every hour with data the first time), oldest first,
   * then moves the watermark to when this started. Safe to run twice at once: each hour is replaced whole.
   */
  async rollUpDue(input: { now?: Date; heartbeat?: () => void } = {}): Promise<{ hours: number; watermark: string }> {
    const now = input.now ?? this.now();
    const since = await this.repo.watermark(this.deps.db);
    const hours = await this.repo.dirtyHours(this.deps.db, since && new Date(since.getTime() - WATERMARK_OVERLAP_MS), now);
    for (const hour of hours) {
      await this.rollUpHour({ hour, now });
      input.heartbeat?.();
    }
    // Accounts whose days are not cut in their zone (a changed zone, or hours rolled before their first days).
    const rebuilt = await this.days.rebuildStale(this.deps.db, input.heartbeat);
    await this.repo.setWatermark(this.deps.db, now);
    this.deps.log?.info({ hours: hours.length, rebuilt }, 'Analytics rollup done');
    return { hours: hours.length, watermark: now.toISOString() };
  }
}
