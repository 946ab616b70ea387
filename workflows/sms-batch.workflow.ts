import { ApplicationFailure, log, makeContinueAsNewFunc, patched, proxyActivities, proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { createSmsActivities } from '../activities/sms.activities';
import { activityFailureCause } from './shared/activity-failures';
import { smsBatchRoundActivity, smsBatchRoundLocalActivity } from './shared/activity-options';
import type { SmsBatchInput, SmsBatchPendingMessage, SmsBatchResult, SmsRoundResult } from './shared/sms.contracts';

type SmsActivities = ReturnType<typeof createSmsActivities>;
const { sendMessage, failMessage } = proxyLocalActivities<SmsActivities>(smsBatchRoundLocalActivity);
const { sendMessageRound } = proxyActivities<SmsActivities>(smsBatchRoundActivity);

/**
 * Rounds as one `sendMessageRound` activity each (issue 21). A batch started before it replays its history
 * with a local `sendMessage` per message; one started after records this patch's marker once.
 */
const ROUND_ACTIVITY_PATCH = 'sms-batch-round-activity';

/** A message no carrier accepted this long after the batch's first start is failed. */
const GIVE_UP_AFTER_MS = 72 * 3_600_000;
/** Backoff of a message after a failed attempt: 1 s, doubling, at most 30 s (the single-message submit's). */
const BACKOFF_INITIAL_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** Well under Temporal's 51,200-event limit; the server may suggest continuing as new earlier. */
const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 10_000;

const backoffMs = (failedAttempts: number) => Math.min(BACKOFF_INITIAL_MS * 2 ** (failedAttempts - 1), BACKOFF_MAX_MS);

/**
 * The message itself cannot be sent (gone: `resource_missing`), as opposed to carriers or the database
 * being away. A local activity's failure arrives unwrapped once its (single) attempt is over, so the
 * ApplicationFailure is checked for both its own flag and the preset's non-retryable types.
 */
function isPermanentFailure(err: unknown): boolean {
  const failure = activityFailureCause(err);
  if (!(failure instanceof ApplicationFailure)) return false;
  return failure.nonRetryable || (smsBatchRoundLocalActivity.retry?.nonRetryableErrorTypes ?? []).includes(failure.type ?? '');
}

/** What a round did with one message: settled it, found it failed retryably, was told to wait, or held it back (pacing). */
type AttemptOutcome = { status: string } | { retry: true } | { uncertainWaitMs: number } | { deferMs: number };

/**
 * One attempt at one message in a round; its failure never stops the others. Past the give-up time, a
 * retryable failure fails the message instead (and if that cannot be recorded, the next round tries both
 * again).
 */
async function attemptMessage(message: SmsBatchPendingMessage, pastGiveUp: boolean): Promise<AttemptOutcome> {
  const { messageId } = message;
  try {
    const sent = await sendMessage(message.afterUncertainWait ? { messageId, afterUncertainWait: true } : { messageId });
    // A submit that went out unanswered: wait for its receipt before it may go again.
    return sent.uncertainWaitSeconds ? { uncertainWaitMs: sent.uncertainWaitSeconds * 1000 } : { status: sent.status };
  } catch (err) {
    if (isPermanentFailure(err)) {
      log.error('Message send failed', { messageId, error: String(err) });
      return { status: 'error' };
    }
    if (!pastGiveUp) return { retry: true };
  }
  return failAfterGiveUp(messageId);
}

/**
 * The whole round in one activity (every due message claimed, submitted, recorded and folded together).
 * A round that failed as a whole (the worker died, the database away) makes each message retry; past the
 * give-up time a retryable message is failed instead.
 */
async function attemptRound(due: SmsBatchPendingMessage[], pastGiveUp: boolean): Promise<AttemptOutcome[]> {
  let result: SmsRoundResult | undefined;
  try {
    result = await sendMessageRound({
      messages: due.map((m) => (m.afterUncertainWait ? { messageId: m.messageId, afterUncertainWait: true } : { messageId: m.messageId })),
    });
  } catch (err) {
    log.warn('SMS batch round failed; its messages are tried again', { messages: due.length, error: String(err) });
  }
  return Promise.all(
    due.map(async (m): Promise<AttemptOutcome> => {
      const outcome = result?.outcomes[m.messageId] ?? { retry: true };
      if ('status' in outcome) return { status: outcome.status };
      if ('missing' in outcome) {
        log.error('Message send failed', { messageId: m.messageId, error: 'resource_missing' });
        return { status: 'error' };
      }
      if ('uncertainWaitSeconds' in outcome) return { uncertainWaitMs: outcome.uncertainWaitSeconds * 1000 };
      if ('deferMs' in outcome) return { deferMs: outcome.deferMs };
      return pastGiveUp ? failAfterGiveUp(m.messageId) : { retry: true };
    }),
  );
}

/** A message no carrier took by the give-up time: failed (if that cannot be recorded, the next round tries again). */
async function failAfterGiveUp(messageId: string): Promise<AttemptOutcome> {
  try {
    await failMessage({ messageId, errorCode: 'carrier_unavailable', errorMessage: 'No carrier accepted the message within 72 hours' });
    return { status: 'failed' };
  } catch (err) {
    if (isPermanentFailure(err)) {
      log.error('Message could not be failed', { messageId, error: String(err) });
      return { status: 'error' };
    }
    return { retry: true };
  }
}

/**
 * When a message is due next after a round that ended at `endedAtMs`. Counting from the round's end (not
 * each attempt's) keeps messages with the same backoff in the same round. Before the give-up time a
 * retry is due no later than it, so the last attempt happens at the give-up time itself.
 */
function nextDue(
  message: SmsBatchPendingMessage,
  outcome: { retry: true } | { uncertainWaitMs: number } | { deferMs: number },
  endedAtMs: number,
  giveUpAtMs: number,
): SmsBatchPendingMessage {
  if ('deferMs' in outcome) return { ...message, dueAtMs: endedAtMs + outcome.deferMs };
  if ('uncertainWaitMs' in outcome) {
    return { messageId: message.messageId, failedAttempts: 0, dueAtMs: endedAtMs + outcome.uncertainWaitMs, afterUncertainWait: true };
  }
  const failedAttempts = message.failedAttempts + 1;
  const afterBackoff = endedAtMs + backoffMs(failedAttempts);
  return { ...message, failedAttempts, dueAtMs: endedAtMs < giveUpAtMs ? Math.min(afterBackoff, giveUpAtMs) : afterBackoff };
}

/**
 * Sends a batch of immediate messages in rounds: each round tries every message that is due, concurrently
 * (consent, `sending`, submit through the router, `sent`, as a single message), then the workflow sleeps
 * once until the earliest due time. A message that failed retryably (carriers or the database away) is
 * due again after its backoff; one that went out unanswered after the uncertain wait; one no carrier took
 * within 72 h of the batch's first start is failed. While carriers are down the history grows by about a
 * marker per message per round, so between rounds the run continues as new (pending messages, settled
 * statuses and the first start time carried over) before it nears Temporal's limit. Delivery receipts are
 * folded in by the carrier listener as they arrive.
 */
export async function smsBatchWorkflow(input: SmsBatchInput): Promise<SmsBatchResult> {
  const firstStartedAtMs = input.firstStartedAtMs ?? Date.now();
  const giveUpAtMs = firstStartedAtMs + GIVE_UP_AFTER_MS;
  const continueAsNewAfterEvents = input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS;
  const settled: Record<string, string> = { ...input.settled };
  let pending: SmsBatchPendingMessage[] =
    input.pending ?? input.messageIds.map((messageId) => ({ messageId, failedAttempts: 0, dueAtMs: firstStartedAtMs, afterUncertainWait: false }));

  const roundActivity = patched(ROUND_ACTIVITY_PATCH);
  while (pending.length > 0) {
    const untilDueMs = Math.min(...pending.map((m) => m.dueAtMs)) - Date.now();
    if (untilDueMs > 0) await sleep(untilDueMs);
    const startedAtMs = Date.now();
    const round = pending;
    const pastGiveUp = startedAtMs >= giveUpAtMs;
    let outcomes: (AttemptOutcome | undefined)[];
    if (roundActivity) {
      const due = round.filter((m) => m.dueAtMs <= startedAtMs);
      const byId = new Map((await attemptRound(due, pastGiveUp)).map((o, i) => [due[i]!.messageId, o]));
      outcomes = round.map((m) => byId.get(m.messageId));
    } else {
      outcomes = await Promise.all(round.map((m) => (m.dueAtMs <= startedAtMs ? attemptMessage(m, pastGiveUp) : undefined)));
    }
    const endedAtMs = Date.now();
    pending = [];
    round.forEach((message, i) => {
      const outcome = outcomes[i];
      if (!outcome) pending.push(message);
      else if ('status' in outcome) settled[message.messageId] = outcome.status;
      else pending.push(nextDue(message, outcome, endedAtMs, giveUpAtMs));
    });

    const info = workflowInfo();
    if (pending.length > 0 && (info.continueAsNewSuggested || info.historyLength >= continueAsNewAfterEvents)) {
      log.info('SMS batch continues as new', { pending: pending.length, historyLength: info.historyLength });
      // Passed on explicitly: every run keeps the batch's memo (the Web UI) and its task timeout.
      const continueAsNew = makeContinueAsNewFunc<typeof smsBatchWorkflow>({ memo: info.memo, workflowTaskTimeout: info.taskTimeoutMs });
      await continueAsNew({ ...input, pending, settled, firstStartedAtMs });
    }
  }
  return { statuses: Object.fromEntries(input.messageIds.map((id) => [id, settled[id]!])) };
}
