import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createSmsActivities } from '../../activities/sms.activities';
import type { SendMessageResult } from '../../src/sms/message-delivery.service';
import { smsBatchWorkflowContract, smsBatchWorkflowId, type SmsBatchInput, type SmsRoundOutcome } from '../../workflows/shared/sms.contracts';
import { createTimeSkippingEnv, workflowBundle } from '../support/temporal';

/**
 * The batch workflow through carrier and database outages, on the time-skipping server: hours of
 * workflow time in seconds. The activities are fakes at the edge (the service is not under test here):
 * each call is recorded with the workflow time it ran at.
 */
type SmsActivities = ReturnType<typeof createSmsActivities>;
type SendCall = { messageId: string; afterUncertainWait: boolean; atMs: number };
type FailCall = { messageId: string; errorCode: string; errorMessage: string; atMs: number };
type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];
type SendBehaviour = (call: SendCall, callsOfMessage: SendCall[]) => SendMessageResult;

const HOUR_MS = 3_600_000;
/** 64 (the batch maximum) gives the per-hour figure in docs/decisions/sms-batch-rounds.md; 16 keeps this file quicker. */
const OUTAGE_BATCH_SIZE = 16;
/** Two hours down (half an hour of it without a database) and a run that continues as new every 1,000 events: several runs, in a third of the time six hours took. */
const OUTAGE_MS = 2 * HOUR_MS;
const CONTINUE_AFTER_EVENTS = 1_000;
const SENT: SendMessageResult = { status: 'sent', awaitReceipt: true };
const carriersDown = () => ApplicationFailure.retryable('No carrier accepted the message', 'no_carrier_available');
const databaseAway = () => new Error('connect ECONNREFUSED 127.0.0.1:5432');

let env: TestWorkflowEnvironment;
before(async () => {
  env = await createTimeSkippingEnv();
});
after(async () => {
  await env?.teardown();
});

/**
 * The test server's time. The local activities of a round run inside one workflow task, during which
 * the server does not skip time, so concurrent callers share one request.
 */
let timeRequest: Promise<number> | undefined;
function workflowTimeMs(): Promise<number> {
  timeRequest ??= env.currentTimeMs().finally(() => {
    timeRequest = undefined;
  });
  return timeRequest;
}

function fakeSmsActivities(send: SendBehaviour) {
  const sends: SendCall[] = [];
  const fails: FailCall[] = [];
  const activities: SmsActivities = {
    planMessageSend: async () => assert.fail('a batch has no promotional messages'),
    applyDeliveryReceipts: async () => assert.fail('a batch leaves receipts to the carrier listener'),
    async sendMessage(input) {
      const call = { messageId: input.messageId, afterUncertainWait: input.afterUncertainWait === true, atMs: await workflowTimeMs() };
      sends.push(call);
      return send(call, sends.filter((c) => c.messageId === input.messageId));
    },
    async failMessage(input) {
      fails.push({ ...input, atMs: await workflowTimeMs() });
    },
    // A round as the service answers it: each message's outcome from the same behaviour.
    async sendMessageRound(input) {
      const atMs = await workflowTimeMs();
      const outcomes: Record<string, SmsRoundOutcome> = {};
      for (const m of input.messages) {
        const call = { messageId: m.messageId, afterUncertainWait: m.afterUncertainWait === true, atMs };
        sends.push(call);
        try {
          const sent = send(call, sends.filter((c) => c.messageId === m.messageId));
          outcomes[m.messageId] = sent.uncertainWaitSeconds ? { uncertainWaitSeconds: sent.uncertainWaitSeconds } : { status: sent.status };
        } catch (err) {
          outcomes[m.messageId] = err instanceof ApplicationFailure && err.type === 'resource_missing' ? { missing: true } : { retry: true };
        }
      }
      return { outcomes };
    },
  };
  return { activities, sends, fails };
}

interface RunOfBatch {
  runId: string;
  events: number;
  timers: number;
  startedAtMs: number;
  endedAtMs: number;
  continuedAsNew: boolean;
}

/** Every run of the batch's chain, first to last, from their histories. */
async function runsOfBatch(workflowId: string, firstRunId: string): Promise<RunOfBatch[]> {
  const runs: RunOfBatch[] = [];
  for (let runId: string | undefined = firstRunId; runId; ) {
    const events: HistoryEvent[] = (await env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    const next: string | null | undefined = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    runs.push({
      runId,
      events: events.length,
      timers: events.filter((e) => e.timerStartedEventAttributes).length,
      startedAtMs: tsToMs(events[0]!.eventTime),
      endedAtMs: tsToMs(events.at(-1)!.eventTime),
      continuedAsNew: Boolean(next),
    });
    runId = next ?? undefined;
  }
  return runs;
}

async function runBatch(messageIds: string[], send: SendBehaviour, options: Partial<SmsBatchInput> = {}) {
  const fake = fakeSmsActivities(send);
  const workflowId = smsBatchWorkflowId(messageIds[0]!);
  const taskQueue = `sms-batch-${messageIds[0]}`;
  const startedAtMs = await env.currentTimeMs();
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities: fake.activities });
  const handle = await env.client.workflow.start(smsBatchWorkflowContract.workflowType, {
    taskQueue,
    workflowId,
    args: [{ messageIds, ...options }],
    memo: { messages: messageIds.length },
    workflowTaskTimeout: '60s',
  });
  const result: { statuses: Record<string, string> } = await worker.runUntil(handle.result());
  const runs = await runsOfBatch(workflowId, handle.firstExecutionRunId);
  return { ...fake, result, runs, startedAtMs, workflowId };
}

const batchOf = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `msg_${tag}_${Date.now()}_${i}`);
const allSent = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, 'sent']));

describe('SMS batch workflow through outages (time-skipping)', () => {
  it('waits out two hours of database and carriers down in rounds, continuing as new, then sends each message once', async (t: TestContext) => {
    const ids = batchOf(OUTAGE_BATCH_SIZE, 'outage');
    let outageStart = 0;
    const { result, sends, fails, runs, startedAtMs, workflowId } = await runBatch(
      ids,
      (call) => {
        outageStart ||= call.atMs;
        const down = call.atMs - outageStart;
        if (down < HOUR_MS / 2) throw databaseAway();
        if (down < OUTAGE_MS) throw carriersDown();
        return SENT;
      },
      { continueAsNewAfterEvents: CONTINUE_AFTER_EVENTS },
    );

    assert.deepEqual(result, { statuses: allSent(ids) });
    assert.deepEqual(fails, [], 'failMessage never called');
    const accepted = sends.filter((c) => c.atMs - outageStart >= OUTAGE_MS);
    assert.deepEqual(accepted.map((c) => c.messageId).sort(), [...ids].sort(), 'each message sent exactly once when carriers returned');
    assert.ok(accepted.every((c) => c.atMs - outageStart < OUTAGE_MS + 31_000), 'within one 30 s backoff of their return');

    const continued = runs.filter((r) => r.continuedAsNew);
    assert.ok(continued.length >= 1, `continued as new (${runs.length} runs)`);
    assert.equal((await env.client.workflow.getHandle(workflowId, runs[0]!.runId).describe()).status.name, 'CONTINUED_AS_NEW');
    const last = await env.client.workflow.getHandle(workflowId).describe();
    assert.equal(last.runId, runs.at(-1)!.runId);
    assert.deepEqual(await last.memo, { messages: OUTAGE_BATCH_SIZE }, 'the memo stays with every run');
    assert.equal(Number(last.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds), 60, 'and so does the task timeout');
    assert.ok(runs.every((r) => r.events < CONTINUE_AFTER_EVENTS + 2 * OUTAGE_BATCH_SIZE + 20), `every run stays near its threshold (${runs.map((r) => r.events).join(', ')})`);

    // History growth of the batch while carriers or the database are down, from the runs that continued as new.
    const events = continued.reduce((sum, r) => sum + r.events, 0);
    const hours = continued.reduce((sum, r) => sum + (r.endedAtMs - r.startedAtMs), 0) / HOUR_MS;
    const rounds = continued.reduce((sum, r) => sum + r.timers, 0);
    t.diagnostic(
      `${ids.length} messages, ${((sends.at(-1)!.atMs - startedAtMs) / HOUR_MS).toFixed(2)} h: ${runs.length} runs, ${sends.length} sendMessage calls; ` +
        `${Math.round(events / hours)} history events per hour of outage (${rounds} rounds in ${hours.toFixed(2)} h)`,
    );
  });

  it('fails a message no carrier takes within 72 hours of the first start, and only that one', async () => {
    const ids = batchOf(3, 'never');
    const never = ids[1]!;
    const { result, sends, fails, runs, startedAtMs } = await runBatch(ids, (call) => {
      if (call.messageId === never) throw carriersDown();
      return SENT;
    });

    assert.deepEqual(result, { statuses: { [ids[0]!]: 'sent', [never]: 'failed', [ids[2]!]: 'sent' } });
    assert.equal(fails.length, 1);
    const { atMs: failedAtMs, ...failed } = fails[0]!;
    assert.deepEqual(failed, { messageId: never, errorCode: 'carrier_unavailable', errorMessage: 'No carrier accepted the message within 72 hours' });
    assert.ok(failedAtMs - startedAtMs >= 72 * HOUR_MS, `failed after 72 h (${(failedAtMs - startedAtMs) / HOUR_MS} h)`);
    assert.ok(failedAtMs - startedAtMs < 72 * HOUR_MS + 60_000, 'and not much later');
    assert.equal(sends.filter((c) => c.messageId !== never).length, 2, 'the others sent once each');
    const tries = sends.filter((c) => c.messageId === never);
    assert.ok(tries.at(-1)!.atMs - tries.at(-2)!.atMs <= 30_000, 'tried every 30 s at most until the end');
    assert.ok(runs.length > 1, `the 72 h count survived continue-as-new (${runs.length} runs)`);
  });

  it('after an uncertain submit, calls again with afterUncertainWait no earlier than the wait, also on retries', async () => {
    const ids = batchOf(2, 'uncertain');
    const uncertain = ids[0]!;
    const { result, sends, fails } = await runBatch(ids, (call, callsOfMessage) => {
      if (call.messageId !== uncertain) return SENT;
      if (callsOfMessage.length === 1) return { status: 'sending', awaitReceipt: false, uncertainWaitSeconds: 600 };
      if (callsOfMessage.length < 4) throw databaseAway(); // the retries after the wait keep the flag
      return SENT;
    });

    assert.deepEqual(result, { statuses: allSent(ids) });
    assert.deepEqual(fails, []);
    const [first, ...after] = sends.filter((c) => c.messageId === uncertain);
    assert.equal(first!.afterUncertainWait, false);
    assert.equal(after.length, 3);
    assert.ok(after.every((c) => c.afterUncertainWait), 'every call after the wait says so');
    assert.ok(after[0]!.atMs - first!.atMs >= 600_000, `called again ${(after[0]!.atMs - first!.atMs) / 1000} s after the uncertain submit`);
    const other = sends.filter((c) => c.messageId !== uncertain);
    assert.deepEqual(other.map((c) => c.afterUncertainWait), [false], 'the other message sent once, right away');
  });

  it('ends a deleted message `error` (resource_missing) without stopping the others', async () => {
    const ids = batchOf(4, 'missing');
    const [deleted, deletedRetryableFlag] = [ids[1]!, ids[2]!];
    const { result, sends, fails } = await runBatch(ids, (call, callsOfMessage) => {
      // As activities/activity-errors.ts throws it (non-retryable), and as a bare type the preset lists.
      if (call.messageId === deleted) throw ApplicationFailure.create({ type: 'resource_missing', message: 'No such message', nonRetryable: true });
      if (call.messageId === deletedRetryableFlag) throw ApplicationFailure.create({ type: 'resource_missing', message: 'No such message' });
      if (callsOfMessage.length === 1) throw carriersDown();
      return SENT;
    });

    assert.deepEqual(result, { statuses: { [ids[0]!]: 'sent', [deleted]: 'error', [deletedRetryableFlag]: 'error', [ids[3]!]: 'sent' } });
    assert.deepEqual(fails, []);
    assert.equal(sends.filter((c) => c.messageId === deleted).length, 1);
    assert.equal(sends.filter((c) => c.messageId === deletedRetryableFlag).length, 1);
    assert.equal(sends.filter((c) => c.messageId === ids[3]).length, 2, 'the others retried after their failure');
  });

  it('costs a batch with no outage one round: no timer, one run', async () => {
    const ids = batchOf(8, 'calm');
    const { result, sends, runs } = await runBatch(ids, () => SENT);
    assert.deepEqual(result, { statuses: allSent(ids) });
    assert.equal(sends.length, 8);
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.timers, 0);
    // Started, a workflow task (scheduled, started, completed), the round patch's marker and its search
    // attribute (TemporalChangeVersion), the round's activity (scheduled, started, completed), a workflow
    // task, completed: the same for any batch size.
    assert.equal(runs[0]!.events, 1 + 3 + 2 + 3 + 3 + 1);
  });
});
