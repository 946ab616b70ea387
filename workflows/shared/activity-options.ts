import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/** Named activity option presets; every proxyActivities call uses one of these (STYLE §7). */
export const dbActivity: ActivityOptions = {
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * One outbound HTTP attempt (webhook delivery). The activity records its own outcome and returns it, so
 * Temporal retries only infrastructure faults (a worker killed mid-attempt, the database unreachable):
 * a few quick retries here, then the workflow waits on a durable timer and tries again until the end of
 * the delivery's schedule (WEBHOOK_INFRA_RETRY_DELAY).
 */
export const webhookAttemptActivity: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 3, nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * Ingesting one source version (crawl, parse, chunk, index). Long: it heartbeats per page / batch, so a
 * dead worker is noticed within the heartbeat timeout. AppErrors (source_unreachable, unsupported_file)
 * are non-retryable; infrastructure faults are retried a few times.
 */
export const ingestionActivity: ActivityOptions = {
  startToCloseTimeout: '30m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '2m', maximumAttempts: 4 },
};

/**
 * Embedding a live source's passages (the semantic backfill). Long and CPU-bound on a local model: it
 * heartbeats per batch with the last ordinal done, and a retry resumes there. The embedding endpoint
 * being down is retried with backoff for a good while; the source stays searchable lexically meanwhile.
 */
export const embeddingActivity: ActivityOptions = {
  startToCloseTimeout: '4h',
  heartbeatTimeout: '5m',
  retry: { initialInterval: '10s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 30, nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * SMS delivery steps run as local activities (in the worker, recorded as markers): a message costs the
 * server a few history events instead of three per step, which is what lets thousands per minute flow.
 */
export const smsStepLocalActivity: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * Submitting one scheduled or promotional SMS (smsDeliveryWorkflow) through the carrier router. A
 * retryable carrier failure (every carrier down, circuit open) is retried with backoff for up to 3 days,
 * so the message waits and goes out when a carrier returns; backoffs beyond 10 s become durable workflow
 * timers (a few events per 30 s: fine for one message, not for a batch, see smsBatchRoundLocalActivity).
 */
export const smsSubmitLocalActivity: LocalActivityOptions = {
  startToCloseTimeout: '60s',
  scheduleToCloseTimeout: '72h',
  localRetryThreshold: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * One step of a batch round (submitting one SMS, or failing one the batch gave up on): tried once per
 * round. The batch workflow is the retry loop: a failed message is due again after its backoff, the
 * whole batch waits on one timer per round, and the run continues as new as its history grows. Retries
 * here would either hold the round's workflow task (backoffs within the local retry threshold) or turn
 * into a timer per message (past it), which is the growth the rounds replace. The 72 h give-up is the
 * workflow's too (its own clock, carried over continue-as-new), not a schedule-to-close here.
 */
export const smsBatchRoundLocalActivity: LocalActivityOptions = {
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 1, nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * A batch round as one regular activity (`sendMessageRound`: every due message of the batch claimed,
 * submitted, recorded and folded together). Not a local activity: a round of 64 submits on a busy worker
 * took longer than a workflow task should (Temporal's TMPRL1104 "workflow task over 5 s" warnings, tasks
 * of 20-30 s in the bench); as an activity the workflow task only schedules it. Tried once, like a local
 * round: the workflow is the retry loop (a failed or timed-out round makes its messages due again after
 * their backoff, and the submit journal keeps a resubmit from doubling a submit that went out).
 */
export const smsBatchRoundActivity: ActivityOptions = {
  // A round may wait up to 30 s for one of the worker's round slots, then submits with the router's 15 s
  // attempt deadline (30 s at most per carrier) and records with retries of about 15 s.
  startToCloseTimeout: '3m',
  // It heartbeats every second: a round whose worker died is given up 10 s later, not 3 minutes.
  heartbeatTimeout: '10s',
  retry: { maximumAttempts: 1, nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * An agent run's own steps (load, retrieve, plan with the local planner, record, finish) run as local
 * activities: in the worker, in the same workflow task, recorded as markers. A run costs the server a few
 * history events, which is what keeps a chat reply within tens of milliseconds of the request. Bounded
 * retries: a step that keeps failing fails the run (with its error) instead of hanging it.
 */
export const runStepLocalActivity: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  localRetryThreshold: '10s',
  retry: {
    initialInterval: '200ms',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 6,
    nonRetryableErrorTypes: ['resource_missing', 'parameter_invalid'],
  },
};

/** A remote planner call (OpenAI-compatible or Anthropic): a real activity, visible and retried on 5xx. */
export const remotePlannerActivity: ActivityOptions = {
  startToCloseTimeout: '90s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 4, nonRetryableErrorTypes: ['resource_missing', 'parameter_invalid'] },
};

/**
 * A tool call: a real activity (each shows as `callTool` in the Web UI). The activity enforces the tool's
 * own timeout_ms and its one network retry; Temporal retries only a worker lost mid-call, and the service
 * refuses to resend a non-idempotent call whose first attempt may have reached the tool.
 */
export const toolCallActivity: ActivityOptions = {
  startToCloseTimeout: '75s',
  heartbeatTimeout: '5s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3, nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * Sending a run's reply on its channel (an SMS handed to the messaging area, an email to the SMTP
 * server). A channel that is down is retried with backoff for a day; the reply is already in the
 * transcript meanwhile.
 */
export const replyDeliveryActivity: ActivityOptions = {
  startToCloseTimeout: '60s',
  scheduleToCloseTimeout: '24h',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '10m', nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * One evaluation case: its turns posted and their runs awaited (heartbeating while it waits). A worker
 * lost mid-case is noticed within the heartbeat timeout and the case is retried, finding what it already
 * posted by derived ids (nothing is posted or run twice).
 */
export const evaluationCaseActivity: ActivityOptions = {
  startToCloseTimeout: '15m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10, nonRetryableErrorTypes: ['resource_missing', 'parameter_invalid'] },
};

/** An evaluation's bookkeeping in Postgres (completing it, its comparison and event). */
export const evaluationStepActivity: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 20, nonRetryableErrorTypes: ['resource_missing'] },
};

/**
 * The analytics rollup: every changed hour since the last run, one transaction per hour. The first run after a
 * deployment rolls the whole backlog, so it is long and heartbeats per hour; a retry starts again from the
 * watermark (hours already rolled are rolled again, which gives the same rows).
 */
export const rollupActivity: ActivityOptions = {
  startToCloseTimeout: '2h',
  heartbeatTimeout: '2m',
  retry: { initialInterval: '10s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: 5 },
};
