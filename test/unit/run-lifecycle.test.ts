import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  NEW_RUN_STATUS,
  NEW_TOOL_CALL_STATUSES,
  plannedToolCallStatus,
  RUN_STATUSES,
  RUN_TRANSITIONS,
  TERMINAL_RUN_STATUSES,
  TERMINAL_TOOL_CALL_STATUSES,
  TOOL_CALL_STATUSES,
  TOOL_CALL_TRANSITIONS,
} from '../../src/runs/run-lifecycle';

/** Statuses reachable from `start` by following `moves` (each: from → to[]). */
function reachable(start: readonly string[], moves: { from: readonly string[]; to: readonly string[] }[]): Set<string> {
  const seen = new Set(start);
  for (let grew = true; grew; ) {
    grew = false;
    for (const m of moves) {
      if (!m.from.some((s) => seen.has(s))) continue;
      for (const t of m.to) {
        if (seen.has(t)) continue;
        seen.add(t);
        grew = true;
      }
    }
  }
  return seen;
}

const runMoves = Object.values(RUN_TRANSITIONS).map((m) => ({ from: m.from, to: [m.to] }));
const toolCallMoves = Object.values(TOOL_CALL_TRANSITIONS);

describe('run lifecycle', () => {
  it('a finished run never moves again (completed, failed and expired are no move\'s starting point)', () => {
    for (const [name, move] of Object.entries(RUN_TRANSITIONS)) {
      for (const status of TERMINAL_RUN_STATUSES) assert.ok(!(move.from as readonly string[]).includes(status), `${name} leaves ${status}`);
    }
  });

  it('every run status is reachable from a new run, and every unfinished run can still finish', () => {
    assert.deepEqual([...reachable([NEW_RUN_STATUS], runMoves)].sort(), [...RUN_STATUSES].sort());
    for (const status of RUN_STATUSES.filter((s) => !(TERMINAL_RUN_STATUSES as readonly string[]).includes(s))) {
      const ends = reachable([status], runMoves);
      assert.ok(TERMINAL_RUN_STATUSES.some((t) => ends.has(t)), `${status} cannot finish`);
    }
  });

  it('follows SPEC\'s run table: requires_action comes from in_progress, expired only after waiting', () => {
    assert.deepEqual(RUN_TRANSITIONS.requireAction, { from: ['in_progress'], to: 'requires_action' });
    assert.deepEqual(RUN_TRANSITIONS.resume, { from: ['requires_action'], to: 'in_progress' });
    assert.ok(!(RUN_TRANSITIONS.expire.from as readonly string[]).includes('queued'));
  });
});

describe('tool call lifecycle', () => {
  it('an outcome the planner has read never changes (ok, error, timed_out, rejected, expired, invalid)', () => {
    for (const [name, move] of Object.entries(TOOL_CALL_TRANSITIONS)) {
      for (const status of TERMINAL_TOOL_CALL_STATUSES) assert.ok(!(move.from as readonly string[]).includes(status), `${name} leaves ${status}`);
    }
  });

  it('every tool call status is reachable from a planned call, and every open call can end', () => {
    assert.deepEqual([...reachable(NEW_TOOL_CALL_STATUSES, toolCallMoves)].sort(), [...TOOL_CALL_STATUSES].sort());
    for (const status of TOOL_CALL_STATUSES.filter((s) => !(TERMINAL_TOOL_CALL_STATUSES as readonly string[]).includes(s))) {
      const ends = reachable([status], toolCallMoves);
      assert.ok(TERMINAL_TOOL_CALL_STATUSES.some((t) => ends.has(t)), `${status} cannot end`);
    }
  });

  it('only an approval decides a gated call, and only a submitted result completes a pending one', () => {
    const into = (status: string) => Object.entries(TOOL_CALL_TRANSITIONS).filter(([, m]) => (m.to as readonly string[]).includes(status)).map(([n]) => n).sort();
    assert.deepEqual(into('approved'), ['approve']);
    assert.deepEqual(into('rejected'), ['reject']);
    const leavingPending = Object.entries(TOOL_CALL_TRANSITIONS).filter(([, m]) => (m.from as readonly string[]).includes('pending_result')).map(([n]) => n).sort();
    assert.deepEqual(leavingPending, ['expire', 'submitResult']);
  });

  it('a planned call starts invalid (never sent), awaiting approval (gated) or ready', () => {
    assert.equal(plannedToolCallStatus({ valid: false, requiresApproval: true }), 'invalid');
    assert.equal(plannedToolCallStatus({ valid: true, requiresApproval: true }), 'awaiting_approval');
    assert.equal(plannedToolCallStatus({ valid: true, requiresApproval: false }), 'ready');
  });
});
