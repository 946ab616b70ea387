import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conversationFacts, countsAt, DAY_MS, HOUR_MS, type Timeline } from '../../src/analytics/conversation-facts';
import { addConversation, DURATION_BUCKETS_MS, emptyAggregate, quantileOf, ratesOf } from '../../src/analytics/hourly-metrics';

const T0 = new Date('2026-10-01T09:00:00Z').getTime();
const at = (ms: number) => new Date(T0 + ms);
const W = 24 * HOUR_MS;
const LATER = at(60 * DAY_MS);

/** A conversation: the customer asks at 0, the agent answers a minute later, then `more`. */
function timeline(more: Partial<Timeline> & { extra?: Timeline['messages'] } = {}): Timeline {
  return {
    createdAt: at(0),
    closedAt: null,
    handedOffNow: false,
    messages: [{ role: 'customer', at: at(0) }, { role: 'agent', at: at(60_000) }, ...(more.extra ?? [])],
    handoffs: more.handoffs ?? [],
    feedback: more.feedback ?? [],
    ...(more.closedAt ? { closedAt: more.closedAt } : {}),
    ...(more.handedOffNow ? { handedOffNow: true } : {}),
  };
}

describe('analytics formulas: one conversation', () => {
  it('an answer and silence: assumed resolved once the window has passed, not before; durable 7 days after that', () => {
    const f = conversationFacts(timeline(), W);
    assert.equal(f.resolution, 'assumed');
    assert.equal(f.resolvedAt!.getTime(), T0 + 60_000 + W);
    assert.equal(countsAt(f, at(60_000 + W - 1)).resolved, false, 'not yet: the window has not passed');
    assert.equal(countsAt(f, at(60_000 + W)).resolved, true);
    assert.equal(countsAt(f, at(60_000 + W + 6 * DAY_MS)).durable, false, 'durable only after 7 days');
    assert.equal(countsAt(f, at(60_000 + W + 7 * DAY_MS)).durable, true);
    assert.equal(f.agentFirstResponseMs, 60_000);
    assert.equal(f.agentResolutionMs, 60_000, 'time to resolution runs to the resolving answer, not to the end of the window');
  });

  it('answer then handoff: handed off, not resolved', () => {
    const f = conversationFacts(timeline({ extra: [{ role: 'customer', at: at(5 * 60_000) }], handoffs: [{ at: at(6 * 60_000), reason: 'low_confidence' }] }), W);
    assert.equal(f.handedOff, true);
    assert.equal(f.handoffReason, 'low_confidence');
    assert.equal(f.resolution, null);
    assert.equal(f.involved, true, 'the agent answered once: involved');
  });

  it('a human reply inside the window: not resolved by the agent; human first response measured from the first customer message', () => {
    const f = conversationFacts(timeline({ extra: [{ role: 'human', at: at(2 * HOUR_MS) }] }), W);
    assert.equal(f.resolution, null);
    assert.equal(f.humanReplied, true);
    assert.equal(f.humanFirstResponseMs, 2 * HOUR_MS);
  });

  it('a customer follow-up at 23 h: the first answer does not resolve; the answer to the follow-up can', () => {
    const f = conversationFacts(timeline({ extra: [{ role: 'customer', at: at(60_000 + 23 * HOUR_MS) }, { role: 'agent', at: at(60_000 + 23 * HOUR_MS + 30_000) }] }), W);
    assert.equal(f.resolution, 'assumed');
    assert.equal(f.resolvingAt!.getTime(), T0 + 60_000 + 23 * HOUR_MS + 30_000);
    assert.equal(f.reopenedAt, null);
    const unanswered = conversationFacts(timeline({ extra: [{ role: 'customer', at: at(60_000 + 23 * HOUR_MS) }] }), W);
    assert.equal(unanswered.resolution, null, 'a follow-up the agent never answered: no resolution');
  });

  it('a customer follow-up at 25 h: resolved (the window passed), then reopened: counted in the reopen rate, never durable', () => {
    const f = conversationFacts(timeline({ extra: [{ role: 'customer', at: at(60_000 + 25 * HOUR_MS) }] }), W);
    assert.equal(f.resolution, 'assumed');
    assert.equal(f.reopenedAt!.getTime(), T0 + 60_000 + 25 * HOUR_MS);
    const c = countsAt(f, LATER);
    assert.deepEqual([c.resolved, c.reopened, c.durable], [true, true, false]);
  });

  it('reopened on day 6 leaves durable; a message on day 8 is a new contact, not a reopen', () => {
    const resolvedAt = 60_000 + W;
    const day6 = conversationFacts(timeline({ extra: [{ role: 'customer', at: at(resolvedAt + 6 * DAY_MS) }] }), W);
    assert.deepEqual(countsAt(day6, at(resolvedAt + 5 * DAY_MS)), { resolved: true, confirmed: false, assumed: true, reopened: false, durable: false });
    assert.deepEqual(countsAt(day6, LATER), { resolved: true, confirmed: false, assumed: true, reopened: true, durable: false });
    const day8 = conversationFacts(timeline({ extra: [{ role: 'customer', at: at(resolvedAt + 8 * DAY_MS) }] }), W);
    assert.deepEqual(countsAt(day8, LATER), { resolved: true, confirmed: false, assumed: true, reopened: false, durable: true });
  });

  it('a thumbs-up after an answer: confirmed at once, without waiting for the window', () => {
    const f = conversationFacts(timeline({ feedback: [{ rating: 'up', at: at(2 * 60_000) }] }), W);
    assert.equal(f.resolution, 'confirmed');
    assert.equal(countsAt(f, at(3 * 60_000)).confirmed, true);
  });

  it('a thumbs-up after a handoff: not an agent resolution (the person helped), still counted as a thumbs-up', () => {
    const f = conversationFacts(timeline({
      extra: [{ role: 'customer', at: at(5 * 60_000) }, { role: 'human', at: at(20 * 60_000) }],
      handoffs: [{ at: at(6 * 60_000), reason: 'customer_requested' }],
      feedback: [{ rating: 'up', at: at(30 * 60_000) }],
    }), W);
    assert.equal(f.resolution, null);
    assert.equal(f.thumbsUp, true);
    assert.equal(f.handedOff, true);
    assert.equal(f.humanFirstResponseMs, 14 * 60_000, 'human first response runs from the handoff');
  });

  it('a later thumbs-down withdraws a thumbs-up (the latest rating counts)', () => {
    const f = conversationFacts(timeline({ feedback: [{ rating: 'up', at: at(2 * 60_000) }, { rating: 'down', at: at(3 * 60_000) }], extra: [{ role: 'customer', at: at(4 * 60_000) }] }), W);
    assert.equal(f.resolution, null);
    assert.equal(f.thumbsDown, true);
  });

  it('a conversation the agent never answered: not involved, not in the resolution rate\'s denominator', () => {
    const f = conversationFacts({ createdAt: at(0), closedAt: null, handedOffNow: true, messages: [{ role: 'customer', at: at(0) }], handoffs: [], feedback: [] }, W);
    assert.equal(f.involved, false);
    assert.equal(f.handedOff, true);
    const a = emptyAggregate();
    addConversation(a, f, LATER);
    addConversation(a, conversationFacts(timeline(), W), LATER);
    const r = ratesOf(a);
    assert.equal(r.involvement_rate, 0.5);
    assert.equal(r.resolution_rate, 1);
    assert.equal(r.automation_rate, 0.5, 'automation = involvement × resolution');
    assert.equal(r.handoff_rate, 0.5);
  });
});

describe('analytics formulas: histograms', () => {
  it('a median inside one bucket is interpolated; an empty histogram has none', () => {
    const buckets = new Array<number>(DURATION_BUCKETS_MS.length + 1).fill(0);
    assert.equal(quantileOf(buckets, 0.5), null);
    buckets[DURATION_BUCKETS_MS.indexOf(1000)] = 10; // ten values in (750, 1000]
    const median = quantileOf(buckets, 0.5)!;
    assert.ok(median > 750 && median <= 1000, String(median));
  });
});
