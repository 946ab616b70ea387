/**
 * The per-conversation formulas of analytics, written once: what makes a conversation involved, resolved
 * (confirmed or assumed), reopened, durable, handed off, and its first-response and resolution times. The
 * rollup computes these from the stored transcript; the hourly rows add them up; the API's `formulas` and the
 * console's chart captions quote FORMULAS below. See docs/decisions/analytics-formulas-and-rollups.md.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** A resolution still not reopened this long after its moment is durable. */
export const DURABLE_AFTER_MS = 7 * DAY_MS;

/** The formulas in words, as the API reference and each chart state them (one text per metric). */
export const FORMULAS = {
  conversations: 'Conversations with the agent that started in the period (console test chats and evaluation conversations excluded).',
  involvement_rate: 'involved / conversations, where involved = conversations the agent answered at least once.',
  resolved_confirmed: 'The customer gave a thumbs-up (POST /v1/conversations/{id}/feedback, or a plain "yes" by SMS or email to the agent\'s resolution question; the latest rating counts) after an agent answer and before any handoff or human message.',
  resolved_assumed: 'Not confirmed, but an agent answer was followed by no customer message within the resolution window (24 h by default, GET/POST /v1/analytics/settings), with no handoff and no human message before the window ended.',
  resolution_rate: '(resolved_confirmed + resolved_assumed) / involved. A conversation counts once, in the period it started, once its resolution moment (the thumbs-up, or answer + window) has passed.',
  automation_rate: 'involvement_rate × resolution_rate = resolved / conversations.',
  reopen_rate: 'reopened / resolved, where reopened = a customer message came within 7 days after the resolution moment.',
  durable_rate: 'durable / resolved, where durable = resolved, 7 days have passed since the resolution moment, and it was not reopened.',
  handoff_rate: 'Conversations handed off to a person (by any run) / conversations; by reason: the reason of the first handoff.',
  first_response: 'Agent: first agent message − first customer message. Human: first human message − the first handoff (or the first customer message when a person wrote without a handoff). Medians.',
  time_to_resolution: 'Agent: the resolving answer (or the thumbs-up) − first customer message, of resolved conversations. Human: closing time − first handoff, of handed-off conversations a person closed. Medians.',
  run_latency: 'completed_at − created_at of finished runs started in the period: median and p95.',
  tool_calls: 'Tool calls of the runs started in the period by tool and final status (ok, error, timed_out; approval requested, approved, rejected).',
  confidence: 'The confidence of runs that answered (not handed off), in tenths.',
  sms: 'SMS segments of the agent\'s and humans\' replies in the period, and their price as charged by the carrier.',
} as const;

export type Role = 'customer' | 'agent' | 'human' | 'system';

export interface Timeline {
  createdAt: Date;
  closedAt: Date | null;
  /** The conversation is handed off now (an agent-less number's conversations start so). */
  handedOffNow: boolean;
  messages: Array<{ role: Role; at: Date }>;
  /** The runs' handoffs: when the run ended and why. */
  handoffs: Array<{ at: Date; reason: string }>;
  feedback: Array<{ rating: 'up' | 'down'; at: Date }>;
}

export interface ConversationFacts {
  involved: boolean;
  handedOff: boolean;
  handoffReason: string | null;
  humanReplied: boolean;
  /** Candidate resolution: it counts once `resolvedAt` has passed. */
  resolution: 'confirmed' | 'assumed' | null;
  resolvedAt: Date | null;
  /** The agent answer (or the thumbs-up) that resolved it. */
  resolvingAt: Date | null;
  /** The first customer message within 7 days after the resolution moment. */
  reopenedAt: Date | null;
  thumbsUp: boolean;
  thumbsDown: boolean;
  agentFirstResponseMs: number | null;
  humanFirstResponseMs: number | null;
  agentResolutionMs: number | null;
  humanResolutionMs: number | null;
}

const first = <T>(xs: T[]) => xs[0];
const ms = (d: Date) => d.getTime();

/** The facts of one conversation, from its transcript alone (no clock: what passes with time is decided at `countsAt`). */
export function conversationFacts(t: Timeline, windowMs: number): ConversationFacts {
  const msgs = [...t.messages].sort((a, b) => ms(a.at) - ms(b.at));
  const customer = msgs.filter((m) => m.role === 'customer');
  const agent = msgs.filter((m) => m.role === 'agent');
  const human = msgs.filter((m) => m.role === 'human');
  const handoffs = [...t.handoffs].sort((a, b) => ms(a.at) - ms(b.at));
  const firstHandoff = first(handoffs);
  const firstHuman = first(human);
  const firstCustomer = first(customer);
  // After a handoff or a person's message, the agent no longer resolves the conversation on its own.
  const blockedAt = Math.min(firstHandoff ? ms(firstHandoff.at) : Infinity, firstHuman ? ms(firstHuman.at) : Infinity);

  const feedback = [...t.feedback].sort((a, b) => ms(a.at) - ms(b.at));
  const latest = feedback[feedback.length - 1];
  let resolution: ConversationFacts['resolution'] = null;
  let resolvedAt: number | null = null;
  let resolvingAt: number | null = null;
  if (latest?.rating === 'up' && ms(latest.at) < blockedAt && agent.some((a) => ms(a.at) <= ms(latest.at))) {
    resolution = 'confirmed';
    resolvedAt = resolvingAt = ms(latest.at);
  } else {
    for (const a of agent) {
      const answeredAt = ms(a.at);
      if (answeredAt >= blockedAt) break;
      const nextCustomer = customer.find((c) => ms(c.at) > answeredAt);
      const quietUntil = answeredAt + windowMs;
      if ((!nextCustomer || ms(nextCustomer.at) > quietUntil) && blockedAt > quietUntil) {
        resolution = 'assumed';
        resolvedAt = quietUntil;
        resolvingAt = answeredAt;
        break;
      }
    }
  }
  const reopen = resolvedAt === null ? undefined : customer.find((c) => ms(c.at) > resolvedAt! && ms(c.at) <= resolvedAt! + DURABLE_AFTER_MS);
  const start = firstCustomer ? ms(firstCustomer.at) : ms(t.createdAt);
  const firstAgent = first(agent);
  const humanFrom = firstHandoff ? ms(firstHandoff.at) : start;
  const handedOff = handoffs.length > 0 || t.handedOffNow;
  return {
    involved: agent.length > 0,
    handedOff,
    handoffReason: firstHandoff?.reason ?? (handedOff ? 'unknown' : null),
    humanReplied: human.length > 0,
    resolution,
    resolvedAt: resolvedAt === null ? null : new Date(resolvedAt),
    resolvingAt: resolvingAt === null ? null : new Date(resolvingAt),
    reopenedAt: reopen ? reopen.at : null,
    thumbsUp: latest?.rating === 'up',
    thumbsDown: latest?.rating === 'down',
    agentFirstResponseMs: firstAgent && firstCustomer && ms(firstAgent.at) >= start ? ms(firstAgent.at) - start : null,
    humanFirstResponseMs: firstHuman && ms(firstHuman.at) >= humanFrom ? ms(firstHuman.at) - humanFrom : null,
    agentResolutionMs: resolvingAt !== null ? Math.max(0, resolvingAt - start) : null,
    humanResolutionMs: handedOff && firstHandoff && t.closedAt && ms(t.closedAt) >= ms(firstHandoff.at) ? ms(t.closedAt) - ms(firstHandoff.at) : null,
  };
}

/** What the facts count for at `now`: a resolution once its moment has passed; durable once 7 more days have. */
export function countsAt(f: ConversationFacts, now: Date) {
  const resolved = f.resolvedAt !== null && ms(f.resolvedAt) <= ms(now);
  const reopened = resolved && f.reopenedAt !== null && ms(f.reopenedAt) <= ms(now);
  return {
    resolved,
    confirmed: resolved && f.resolution === 'confirmed',
    assumed: resolved && f.resolution === 'assumed',
    reopened,
    durable: resolved && !reopened && ms(f.resolvedAt!) + DURABLE_AFTER_MS <= ms(now),
  };
}
