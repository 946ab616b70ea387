import type { ConversationChannel } from '../domain/channels';
import type { RunObject } from '../runs/run.schemas';
import { segmentSms } from '../sms/segmenter';
import type { CaseFailure, TurnExpectations } from './evaluation.schemas';

/** A required action the evaluation saw while the turn's run waited (before it answered it). */
export interface ObservedAction {
  type: 'approve_tool_call' | 'submit_tool_result';
  tool_calls: { tool: string; arguments: Record<string, unknown> }[];
}

/** What one customer turn produced, as the expectations read it. */
export interface TurnOutcome {
  turn: number;
  channel: ConversationChannel;
  /** The turn's run as it ended; null when the message started none (a human holds the conversation). */
  run: RunObject | null;
  actions: ObservedAction[];
  /** Every stored field of the case's conversation (transcript, runs, tool calls, events) as one text, for `redacted`. */
  stored: () => Promise<string>;
}

const lower = (s: string) => s.toLowerCase();

/** Whether `subset`'s keys all appear in `args` with equal values (deep, JSON equality). */
export function argumentsInclude(args: Record<string, unknown>, subset: Record<string, unknown> | undefined): boolean {
  if (!subset) return true;
  return Object.entries(subset).every(([k, v]) => k in args && JSON.stringify(args[k]) === JSON.stringify(v));
}

const describeRun = (run: RunObject) =>
  run.status !== 'completed'
    ? `the run ended ${run.status}${run.error ? ` (${run.error.code}: ${run.error.message})` : ''}`
    : run.handoff
      ? `the run handed off (${run.handoff.reason})`
      : 'the run replied';

/**
 * Checks one turn's expectations against what its run did; answers every failed expectation with why.
 * Pure but for `redacted`, which reads the stored fields through `outcome.stored`.
 */
export async function checkTurn(expect: TurnExpectations | undefined, outcome: TurnOutcome): Promise<CaseFailure[]> {
  if (!expect) return [];
  const failures: CaseFailure[] = [];
  const fail = (expectation: string, reason: string) => failures.push({ turn: outcome.turn, expectation, reason });
  const { run } = outcome;
  const calls = run?.tool_calls ?? [];

  if (expect.reply) {
    const reply = run?.reply?.content ?? null;
    if (!run) fail('reply', 'no run answered the turn (a human holds the conversation)');
    else if (reply === null) fail('reply', `no reply: ${describeRun(run)}`);
    else {
      const { cites, contains_one_of: facts, max_sms_segments: maxSegments } = expect.reply;
      if (cites) {
        const cited = run.retrieval.filter((r) => r.cited);
        const match = cited.some(
          (r) =>
            (!cites.source_id || r.source_id === cites.source_id) &&
            (!cites.title || lower(r.title).includes(lower(cites.title))) &&
            (!cites.url || (r.url !== null && lower(r.url).includes(lower(cites.url)))),
        );
        if (!match) fail('reply.cites', `cited ${cited.length ? cited.map((r) => `"${r.title}" (${r.source_id})`).join(', ') : 'no source'}, not ${JSON.stringify(cites)}`);
      }
      if (facts && !facts.some((f) => lower(reply).includes(lower(f)))) fail('reply.contains_one_of', `the reply contains none of ${JSON.stringify(facts)}: "${reply.slice(0, 300)}"`);
      if (maxSegments !== undefined && outcome.channel === 'sms') {
        const segments = segmentSms(reply).segments;
        if (segments > maxSegments) fail('reply.max_sms_segments', `the reply takes ${segments} SMS segments (at most ${maxSegments})`);
      }
    }
  }

  if (expect.handoff) {
    if (!run) fail('handoff', 'no run answered the turn');
    else if (!run.handoff) fail('handoff', `no handoff: ${describeRun(run)}`);
    else if (expect.handoff.reasons && !expect.handoff.reasons.includes(run.handoff.reason)) {
      fail('handoff.reasons', `handed off for ${run.handoff.reason}, not ${expect.handoff.reasons.join(' or ')}`);
    }
  }

  if (expect.requires_action) {
    const want = expect.requires_action;
    const type = want.type === 'approval' ? 'approve_tool_call' : want.type === 'async_result' ? 'submit_tool_result' : undefined;
    const seen = outcome.actions.filter((a) => !type || a.type === type).flatMap((a) => a.tool_calls);
    if (!seen.some((c) => c.tool === want.tool && argumentsInclude(c.arguments, want.arguments))) {
      const what = outcome.actions.length ? outcome.actions.map((a) => `${a.type} ${a.tool_calls.map((c) => `${c.tool}(${JSON.stringify(c.arguments)})`).join(', ')}`).join('; ') : 'no required action';
      fail('requires_action', `expected ${want.type ?? 'an action'} on ${want.tool}${want.arguments ? `(${JSON.stringify(want.arguments)})` : ''}; saw ${what}`);
    }
  }

  if (expect.tool_called) {
    const want = expect.tool_called;
    if (!calls.some((c) => c.tool === want.tool && argumentsInclude(c.arguments, want.arguments))) {
      fail('tool_called', `no call of ${want.tool}${want.arguments ? ` with ${JSON.stringify(want.arguments)}` : ''}; calls: ${calls.length ? calls.map((c) => `${c.tool}(${JSON.stringify(c.arguments)})`).join(', ') : 'none'}`);
    }
  }

  if (expect.no_tool && calls.length > 0) fail('no_tool', `called ${calls.map((c) => c.tool).join(', ')}`);

  if (expect.redacted) {
    const stored = lower(await outcome.stored());
    const found = expect.redacted.filter((s) => stored.includes(lower(s)));
    if (found.length) fail('redacted', `stored as given: ${found.map((s) => JSON.stringify(s)).join(', ')}`);
  }
  return failures;
}
