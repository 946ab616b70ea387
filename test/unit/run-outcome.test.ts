import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentConfigSchema } from '../../src/agents/agent.schemas';
import { decideRunOutcome } from '../../src/runs/run-outcome';
import type { StoredRetrievalItem } from '../../src/runs/run.schemas';

const config = AgentConfigSchema.parse({ name: 'Support', channels: ['chat'], locales: ['en'], instructions: 'Help.', knowledge_bases: [], retrieval_required: true });
const passage = (title: string, score: number): StoredRetrievalItem => ({
  source: 'kb_1', source_id: 'src_1', title, snippet: `${title}: what the article says.`, url: null, score, cited: false, content: `${title}: what the article says.`,
});

describe('run outcome: a handoff', () => {
  it("suggests a passage's words only when it cleared a lower bar, never an unrelated article", () => {
    const unrelated = decideRunOutcome({ config, decision: null, retrieval: [passage('Refunds', 0.08)], customerMessage: 'Can I pay with bitcoin?', forcedHandoff: 'approval_expired' });
    assert.equal(unrelated.handoff?.suggested_reply, '');
    const near = decideRunOutcome({ config, decision: null, retrieval: [passage('Refunds', 0.4)], customerMessage: 'How do refunds work?', forcedHandoff: 'approval_expired' });
    assert.equal(near.handoff?.suggested_reply, 'Refunds: what the article says.');
  });

  it('shows the number that decided: the best score, below the floor, for no_supporting_source', () => {
    const decision = { type: 'handoff' as const, reason: 'no_supporting_source' as const, summary: 'No passage reached the floor.', suggestedReply: '', usage: { input_tokens: 1, output_tokens: 1 } };
    const outcome = decideRunOutcome({ config, decision, retrieval: [passage('Refunds', 0.31)], customerMessage: 'Do you repair bicycles?' });
    assert.equal(outcome.handoff?.reason, 'no_supporting_source');
    assert.equal(outcome.confidence, 0.31);
    assert.ok(outcome.confidence < config.guardrails.confidence_floor);
  });
});
