import type { Server } from 'node:http';
import type { Worker } from '@temporalio/worker';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { createActivities } from '../../activities';
import { createCarrierRouter } from '../sms/carrier-registry';
import type { Config } from '../config/env';
import type { ListenFn } from '../db/database';
import type { DB } from '../db/schema';
import { createApp } from './create-app';
import { startMetricsServer } from '../http/metrics-access';
import { startApiKeyRevocationFeed } from '../accounts/api-key-revocation-feed';
import type { PgListener } from '../platform/pg-listen';
import { closeGracefully } from '../http/graceful-close';
import { startIdempotencySweep } from '../http/middleware/idempotency';
import type { Logger } from '../observability/logger';
import { createMetrics, type Metrics } from '../observability/metrics';
import { createServices, type Services } from './container';
import { connectTemporal, WorkflowGateway } from '../temporal/workflow-gateway';
import { createWorker } from '../temporal/worker';

/** Questions embedded at start (each within the query timeout) before giving the warm-up up to /readyz. */
export const WARM_UP_ATTEMPTS = 60;

/** How long shutdown waits for requests, first webhook attempts and activities in flight. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface Runtime {
  services: Services;
  metrics: Metrics;
  gateway: WorkflowGateway;
  /** Starts the HTTP API; resolves with its server once listening. */
  startApi(port?: number, host?: string): Promise<Server>;
  /** Starts the Temporal worker; resolves once it polls. */
  startWorker(): Promise<Worker>;
  close(): Promise<void>;
}

/**
 * Wires config, database, Temporal and services into the two entry points (API and worker). Both
 * run in one process for `npm start`; main.api.ts and main.worker.ts run them apart.
 */
export async function createRuntime(input: {
  config: Config;
  db: Kysely<DB>;
  log: Logger;
  temporalAddress: string;
  workflowBundle?: { code: string };
  /** LISTEN on the database (wakes the webhook and SMS dispatchers on other processes' commits). */
  listen?: ListenFn;
}): Promise<Runtime> {
  const { config, db, log } = input;
  const metrics = createMetrics();
  const temporal = await connectTemporal({ address: input.temporalAddress, namespace: config.temporal.namespace });
  const gateway = new WorkflowGateway(temporal.client, config.temporal.taskQueue);
  const services = createServices({ config, db, workflows: gateway, log, metrics, smsCarriers: createCarrierRouter(config, log) });
  let server: Server | undefined;
  let metricsServer: Server | undefined;
  let revocations: PgListener | undefined;
  let worker: Worker | undefined;
  let workerRun: Promise<void> | undefined;
  let stopIdempotencySweep: (() => void) | undefined;
  let sentenceSweep: Promise<void> | undefined;
  let closing = false;
  /** Other processes' run moves wake this one's waiters (with a Postgres server; they poll meanwhile). */
  const listenForRuns = () => services.runNotifier.listen().catch((err) => log.warn({ err }, 'Run notification listener failed; waiters poll'));
  /** The query embedding model warmed in the background (main.ts waits for it before its banner). */
  const warmEmbeddings = () =>
    void services.knowledgeRetrieval.warmUp({ attempts: WARM_UP_ATTEMPTS }).catch((err) => log.warn({ err: (err as Error).message }, 'The embedding model did not warm up; /readyz reports it until it does'));

  return {
    services,
    metrics,
    gateway,
    async startApi(port = config.http.port, host = config.http.host) {
      const app = createApp({
        config,
        db,
        services,
        log,
        metrics,
        readiness: [
          { name: 'postgres', check: async () => void (await sql`select 1`.execute(db)) },
          { name: 'temporal', check: async () => void (await temporal.connection.workflowService.getSystemInfo({})) },
          // Not ready until the query embedding model has answered a question in time (else the first
          // questions would be answered lexically): one more try per check while it warms.
          ...(config.embeddings.enabled ? [{ name: 'embeddings', check: () => services.knowledgeRetrieval.warmUp() }] : []),
        ],
      });
      stopIdempotencySweep = startIdempotencySweep(db, log);
      warmEmbeddings();
      server = await new Promise<Server>((resolve) => {
        const s = app.listen(port, host, () => resolve(s));
      });
      if (config.database.url) {
        // Revocations by other processes (another API, the CLI) drop this process's key cache at once.
        revocations = startApiKeyRevocationFeed({ url: config.database.url, accounts: services.accounts, log });
      }
      // Runs move in the worker: its notifications wake this process's waiters (a POST with wait_ms, an
      // SSE stream) at once.
      await listenForRuns();
      // Conversation streams: one listener for every open stream of this process.
      await services.conversationEvents.listen().catch((err) => log.warn({ err }, 'Conversation stream listener failed; streams read again every 30 s'));
      // Team emails about conversations that need a person (SMTP configured): heard through that listener.
      services.teamAlerts?.start();
      if (config.metrics.port !== undefined) metricsServer = await startMetricsServer(metrics, { ...config.metrics, port: config.metrics.port });
      return server;
    },
    async startWorker() {
      warmEmbeddings();
      // Carriers live in the worker: receipts and inbound SMS reach the messaging service from here.
      await services.inboundSms.startCarriers();
      worker = await createWorker({
        // The client's connection: workflows this process starts can be handed to this worker eagerly.
        connection: temporal.connection,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        activities: createActivities(services),
        workflowBundle: input.workflowBundle,
      });
      workerRun = worker.run();
      workerRun.catch((err) => log.error({ err }, 'Worker stopped with an error'));
      await services.webhookDispatcher.start({ listen: input.listen });
      // The analytics rollup runs on a Temporal schedule; a worker start creates it (or updates its spec).
      await services.analyticsRollup.ensureSchedule().catch((err) => log.warn({ err }, 'The analytics rollup schedule could not be created; the next worker start tries again'));
      await services.smsDispatcher.start({ listen: input.listen });
      // An evaluation's case runner waits for runs another worker process may be moving.
      await listenForRuns();
      if (config.embeddings.enabled && config.embeddings.sentences) {
        // Stored vectors without sentence vectors (from before them, or with the switch off) get them
        // now, not at their source's next sync (which a `manual` source never has). Boot does not wait.
        sentenceSweep = services.knowledgeEmbedding.sweepMissingSentenceVectors({ stopping: () => closing }).then(
          (r) => log.info(r, 'Sentence vector sweep: backfills started for sources missing sentence vectors'),
          (err) => log.warn({ err }, 'Sentence vector sweep failed; those sources get them at their next sync or boot'),
        );
      }
      return worker;
    },
    async close() {
      await revocations?.close();
      if (metricsServer) await new Promise<void>((resolve) => metricsServer!.close(() => resolve()));
      stopIdempotencySweep?.();
      // Requests in flight finish (bounded); then first attempts in flight are recorded, the worker
      // drains (its shutdown grace), and only then do the carriers stop.
      // Open conversation streams end now (clients resume with Last-Event-ID) rather than hold the drain.
      services.teamAlerts?.stop();
      await services.conversationEvents.close();
      if (server) await closeGracefully(server, SHUTDOWN_GRACE_MS);
      await services.webhookDispatcher.stop(SHUTDOWN_GRACE_MS);
      await services.smsDispatcher.stop();
      closing = true;
      // The sweep stops between sources; one start in flight is waited for, at most the grace period.
      if (sentenceSweep) await Promise.race([sentenceSweep, new Promise((r) => setTimeout(r, SHUTDOWN_GRACE_MS).unref())]);
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await workerRun?.catch(() => undefined);
      await services.runNotifier.close();
      if (worker) await services.inboundSms.stopCarriers().catch((err) => log.error({ err }, 'Stopping SMS carriers failed'));
      await temporal.connection.close();
    },
  };
}
