import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeActivities } from '../../activities';
import * as workflows from '../../workflows';
import * as evaluations from '../../workflows/shared/evaluations.contracts';
import * as knowledge from '../../workflows/shared/knowledge.contracts';
import * as messaging from '../../workflows/shared/sms.contracts';
import * as verifications from '../../workflows/shared/verifications.contracts';
import * as webhooks from '../../workflows/shared/webhooks.contracts';

const contracts = [evaluations, knowledge, messaging, verifications, webhooks]
  .flatMap((m) => Object.values(m))
  .filter((v): v is { workflowType: string } => typeof v === 'object' && v !== null && 'workflowType' in v);

describe('the Temporal boundary', () => {
  it('every workflow contract names a workflow the worker registers', () => {
    assert.ok(contracts.length >= 5);
    for (const c of contracts) assert.equal(typeof (workflows as Record<string, unknown>)[c.workflowType], 'function', c.workflowType);
  });

  it('refuses two activity factories that define the same name', () => {
    const merged = mergeActivities({ a: () => 1 }, { b: () => 2 });
    assert.deepEqual(Object.keys(merged), ['a', 'b']);
    assert.throws(() => mergeActivities({ sendMessage: () => 1 }, { sendMessage: () => 2 }), /'sendMessage'/);
  });
});
