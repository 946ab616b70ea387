import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import type { createRunActivities } from '../../activities/runs.activities';
import { previousRunFinishedSignal } from '../../workflows/shared/runs.contracts';
import { createTimeSkippingEnv } from '../support/temporal';

type RunActivities = ReturnType<typeof createRunActivities>;

/**
 * The run workflow reads startRun's answer in SPEC's run statuses, and also in the shape histories
 * recorded before that change hold ({state: ready|blocked|guarded|finished}): a run in flight across the
 * deploy replays those recorded answers and must take the same path it took then.
 */
let env: TestWorkflowEnvironment;
let bundle: { code: string };
before(async () => {
  env = await createTimeSkippingEnv();
  bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows/agent-run.workflow'), logger: new DefaultLogger('WARN') });
});
after(async () => {
  await env?.teardown();
});

/** Runs the workflow over fake steps whose startRun answers `answers` in turn; returns its result and the steps called. */
async function runWith(answers: unknown[], opts: { signalPrevious?: boolean } = {}) {
  const taskQueue = `agent-run-start-${Date.now()}-${Math.random()}`;
  const called: string[] = [];
  const step = <T>(name: string, value: T) => async () => {
    called.push(name);
    return value;
  };
  let n = 0;
  const activities = {
    startRun: async () => {
      called.push('startRun');
      return answers[Math.min(n++, answers.length - 1)];
    },
    retrieveKnowledge: step('retrieveKnowledge', { passages: 0, topScore: 0 }),
    planNextStep: step('planNextStep', { type: 'reply' }),
    finishRun: step('finishRun', { status: 'completed', deliver: false }),
    deliverReply: step('deliverReply', undefined),
    failRun: step('failRun', { status: 'failed' }),
    expireRun: step('expireRun', { status: 'expired' }),
  } as unknown as RunActivities;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities });
  const result = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('agentRunWorkflow', {
      taskQueue,
      workflowId: taskQueue,
      args: [{ runId: taskQueue, planner: 'local', approvalTimeoutSeconds: 60, toolResultTimeoutSeconds: 60 }],
    });
    if (opts.signalPrevious) {
      while (n === 0) await new Promise((r) => setTimeout(r, 20));
      await handle.signal(previousRunFinishedSignal);
    }
    return handle.result();
  });
  return { result, called };
}

const ANSWERED = ['startRun', 'retrieveKnowledge', 'planNextStep', 'finishRun'];

describe('agent run workflow: startRun answers (time-skipping)', () => {
  it('in_progress: retrieves, plans and finishes', async () => {
    const { result, called } = await runWith([{ status: 'in_progress' }]);
    assert.deepEqual(result, { status: 'completed' });
    assert.deepEqual(called, ANSWERED);
  });

  it('in_progress and decided (a restricted topic): finishes without retrieving or planning', async () => {
    const { result, called } = await runWith([{ status: 'in_progress', decided: true }]);
    assert.deepEqual(result, { status: 'completed' });
    assert.deepEqual(called, ['startRun', 'finishRun']);
  });

  it('queued: waits for the previous run, then starts again', async () => {
    const { result, called } = await runWith([{ status: 'queued' }, { status: 'in_progress' }], { signalPrevious: true });
    assert.deepEqual(result, { status: 'completed' });
    assert.deepEqual(called, ['startRun', ...ANSWERED]);
  });

  it('already finished: ends with that status and calls nothing else', async () => {
    const { result, called } = await runWith([{ status: 'failed' }]);
    assert.deepEqual(result, { status: 'failed' });
    assert.deepEqual(called, ['startRun']);
  });

  it('recorded answers of the former shape take the paths they took', async () => {
    assert.deepEqual((await runWith([{ state: 'ready' }])).called, ANSWERED);
    assert.deepEqual((await runWith([{ state: 'guarded' }])).called, ['startRun', 'finishRun']);
    assert.deepEqual((await runWith([{ state: 'blocked' }, { state: 'ready' }], { signalPrevious: true })).called, ['startRun', ...ANSWERED]);
    const finished = await runWith([{ state: 'finished', status: 'expired' }]);
    assert.deepEqual(finished, { result: { status: 'expired' }, called: ['startRun'] });
  });
});
