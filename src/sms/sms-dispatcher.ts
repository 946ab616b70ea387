import type { Duration } from '@temporalio/common';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { OutboxPump, type ListenFn } from '../platform/outbox-pump';
import type { Logger } from '../observability/logger';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import {
  smsBatchWorkflowContract,
  smsBatchWorkflowId,
  smsDeliveryWorkflowContract,
  smsDeliveryWorkflowId,
} from '../../workflows/shared/sms.contracts';
import { SMS_OUTBOX_CHANNEL, SmsOutboxRepo, type ClaimedOutboxMessage, type UnclaimedOutboxMessage } from './sms-outbox.repo';

export interface SmsDispatcherOptions {
  /** Immediate messages per batch workflow. */
  batchSize: number;
  /** Rows claimed at once (several batches). */
  claimLimit: number;
  /** Workflow starts in flight at once. */
  startConcurrency: number;
  /** How often the outbox is swept for rows no notification announced (or whose lease ran out). */
  sweepMs: number;
  /** How long a claim holds; past it another dispatcher starts the same workflows again. */
  leaseMs: number;
  /** After a failed start (Temporal away), the claim is tried again this much later. */
  startRetryMs: number;
  /** A batch's sends run as local activities of one workflow task: on a worker short of CPU they outlast the default 10 s. */
  batchWorkflowTaskTimeout: Duration;
  /** How long a delivery workflow waits for the handset receipt (config.messaging.receiptTimeoutSeconds). */
  receiptTimeoutSeconds: number;
}

export const DEFAULT_SMS_DISPATCH: Omit<SmsDispatcherOptions, 'receiptTimeoutSeconds'> = {
  batchSize: 64,
  claimLimit: 512,
  startConcurrency: 8,
  sweepMs: 2_000,
  leaseMs: 30_000,
  startRetryMs: 5_000,
  batchWorkflowTaskTimeout: '60s',
};

/** One workflow to start: a batch of immediate messages, or one message's delivery workflow. */
interface Dispatch {
  batchId: string;
  messages: ClaimedOutboxMessage[];
}

/**
 * The SMS outbox dispatcher (worker process): the API commits a message `queued` with its outbox row and
 * answers; this starts the workflows. Immediate messages are grouped into batch workflows (up to
 * `batchSize`, in the order accepted), scheduled and promotional ones get a delivery workflow each. Woken
 * by the in-process announcement of MessagesService, by LISTEN on SMS_OUTBOX_CHANNEL (commits in other
 * processes) and by a sweep; batches form by themselves under load (whatever waited while the previous
 * claim was being started goes in the next).
 *
 * Exactly one workflow per message: a claim names each row's workflow (`batch_id`) in the claiming
 * transaction, the workflow id derives from that name, starts reject duplicates, and a claim taken over
 * after its lease ran out keeps the names. Rows are deleted only once their workflow exists.
 */
export class SmsDispatcher {
  private readonly repo = new SmsOutboxRepo();
  private readonly pump: OutboxPump;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: WorkflowGateway;
      /** In-process announcement of committed messages (the API in this process). */
      onQueued?: (listener: () => void) => () => void;
      /** Run on every sweep after the round (message batches completed). */
      onSweep?: () => Promise<unknown>;
      log: Logger;
      options: SmsDispatcherOptions;
    },
  ) {
    this.pump = new OutboxPump({
      channel: SMS_OUTBOX_CHANNEL,
      sweepMs: deps.options.sweepMs,
      round: (sweep) => this.round(sweep),
      onQueued: deps.onQueued,
      log: deps.log,
      failureMessage: 'Dispatching queued SMS failed; the sweep tries again',
      listenFailureMessage: 'LISTEN for the SMS outbox failed; relying on the sweep',
    });
  }

  async start(opts: { listen?: ListenFn } = {}): Promise<void> {
    await this.pump.start(opts);
  }

  /** Stops claiming and waits for the starts in flight (their rows are deleted, or their lease runs out). */
  async stop(): Promise<void> {
    await this.pump.stop();
  }

  /** One round: on a sweep, takes over expired claims first; then claims what waits and starts it. */
  private async round(sweep: boolean): Promise<boolean> {
    const { db } = this.deps;
    const { claimLimit, leaseMs } = this.deps.options;
    if (sweep) await this.dispatch(groupClaimed(await this.repo.claimExpired(db, leaseMs)));
    const claimed = await this.repo.claimUnclaimed(db, { limit: claimLimit, leaseMs, assign: (rows) => this.assignWorkflows(rows) });
    await this.dispatch(groupClaimed(claimed));
    if (sweep) await this.deps.onSweep?.();
    return claimed.length === claimLimit;
  }

  /** Names the workflow of each row: immediate messages in batches of `batchSize`, the others alone. */
  private assignWorkflows(rows: UnclaimedOutboxMessage[]): Map<string, string> {
    const names = new Map<string, string>();
    let batch: string | undefined;
    let inBatch = 0;
    for (const row of rows) {
      if (row.own_workflow) {
        names.set(row.message_id, row.message_id);
        continue;
      }
      if (!batch || inBatch >= this.deps.options.batchSize) {
        batch = row.message_id; // a batch is named after its first message
        inBatch = 0;
      }
      names.set(row.message_id, batch);
      inBatch++;
    }
    return names;
  }

  /** Starts the workflows (bounded concurrency), deletes the rows of those started, postpones the others. */
  private async dispatch(dispatches: (Dispatch & { skip: boolean })[]): Promise<void> {
    const { db, log } = this.deps;
    const started: string[] = [];
    const failed: string[] = [];
    const queue = [...dispatches];
    const startNext = async (): Promise<void> => {
      for (let d = queue.shift(); d; d = queue.shift()) {
        // Every message canceled meanwhile: nothing to start.
        if (d.skip) {
          started.push(d.batchId);
          continue;
        }
        try {
          await this.startWorkflow(d);
          started.push(d.batchId);
        } catch (err) {
          log.warn({ err, batchId: d.batchId }, 'Starting an SMS workflow failed; trying again shortly');
          failed.push(d.batchId);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.options.startConcurrency, queue.length) }, startNext));
    await this.repo.deleteBatches(db, started);
    await this.repo.postpone(db, failed, this.deps.options.startRetryMs);
  }

  private async startWorkflow(d: Dispatch): Promise<void> {
    const { workflows, options } = this.deps;
    const first = d.messages[0]!;
    if (first.own_workflow) {
      await workflows.start(smsDeliveryWorkflowContract, {
        workflowId: smsDeliveryWorkflowId(first.message_id),
        input: {
          messageId: first.message_id,
          sendAt: first.send_at?.toISOString() ?? null,
          promotional: first.type === 'promotional',
          receiptTimeoutSeconds: options.receiptTimeoutSeconds,
        },
        memo: { accountId: first.account_id, messageId: first.message_id },
      });
      return;
    }
    const messageIds = d.messages.map((m) => m.message_id);
    await workflows.start(smsBatchWorkflowContract, {
      workflowId: smsBatchWorkflowId(d.batchId),
      input: { messageIds },
      memo: { messageIds: messageIds.slice(0, 10), messages: messageIds.length },
      workflowTaskTimeout: options.batchWorkflowTaskTimeout,
    });
  }
}

/** Claimed rows by workflow, in claim order; a workflow whose messages are all no longer queued is skipped. */
function groupClaimed(rows: (ClaimedOutboxMessage & { status: string })[]): (Dispatch & { skip: boolean })[] {
  const byBatch = new Map<string, Dispatch & { skip: boolean }>();
  for (const row of rows) {
    let d = byBatch.get(row.batch_id);
    if (!d) byBatch.set(row.batch_id, (d = { batchId: row.batch_id, messages: [], skip: true }));
    d.messages.push(row);
    if (row.status === 'queued') d.skip = false;
  }
  return [...byBatch.values()];
}
