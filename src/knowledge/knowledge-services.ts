import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import type { AccountsService } from '../accounts/accounts.service';
import type { Logger } from '../observability/logger';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService } from '../webhooks/events.service';
import { KnowledgeBasesService } from './knowledge-bases.service';
import { KnowledgeFilesService } from './knowledge-files.service';
import { KnowledgeIngestionService } from './knowledge-ingestion.service';
import { KnowledgeRetrievalService } from './knowledge-retrieval.service';
import { KnowledgeSourcesService } from './knowledge-sources.service';
import { KnowledgeRecordsService } from './knowledge-records.service';
import { KnowledgeEmbeddingService } from './knowledge-embedding.service';
import { KnowledgeGapsService } from './knowledge-gaps.service';
import { OpenAiEmbeddingsClient, RecentQueryVectors, type EmbeddingsPort } from './index/embeddings.client';
import { fusionModelOf } from './index/scoring';

/**
 * The embeddings ports when semantic retrieval is on and an endpoint is known (npm start fills in the local
 * ones): queries with a short timeout, the backfill on its own endpoint when there is one.
 */
export function createEmbeddingsClients(config: Config['embeddings'], log?: Logger): { query: EmbeddingsPort; backfill: EmbeddingsPort } | undefined {
  if (!config.enabled) return undefined;
  if (!config.url) {
    log?.warn('Embeddings are on but no endpoint is set (EMBEDDINGS_URL): retrieval stays lexical');
    return undefined;
  }
  const client = (url: string, timeoutMs: number) =>
    new OpenAiEmbeddingsClient({ url, apiKey: config.apiKey, model: config.model, inputType: config.inputType, timeoutMs });
  // Query vectors are kept briefly: the planner's tool router reuses the vector retrieval computed.
  return { query: new RecentQueryVectors(client(config.url, config.queryTimeoutMs)), backfill: client(config.backfillUrl ?? config.url, config.timeoutMs) };
}

/** The knowledge area's services, wired once (createServices spreads them in). */
export function createKnowledgeServices(deps: { config: Config; db: Kysely<DB>; accounts: AccountsService; workflows: WorkflowGateway; events: EventsService; log?: Logger }) {
  const { config, db, accounts, workflows, events, log } = deps;
  const allowPrivateNetwork = config.network.allowPrivate;
  const embeddings = createEmbeddingsClients(config.embeddings, log);
  log?.info(
    embeddings ? { mode: 'hybrid', model: embeddings.query.model } : { mode: 'lexical', reason: config.embeddings.enabled ? 'no embeddings endpoint' : 'EMBEDDINGS=off' },
    'Knowledge retrieval mode',
  );
  const knowledgeRetrieval = new KnowledgeRetrievalService({
    db, accounts, allowPrivateNetwork, apiTimeoutMs: config.knowledge.apiTimeoutMs, embeddings: embeddings?.query, fusion: config.embeddings.fusion && fusionModelOf(config.embeddings.fusion),
    denseScanMax: config.embeddings.scanMax, sentences: config.embeddings.sentences, log,
  });
  const knowledgeEmbedding = new KnowledgeEmbeddingService({ db, embeddings: embeddings?.backfill, batchSize: config.embeddings.batchSize, sentences: config.embeddings.sentences, log, workflows });
  const knowledgeSources = new KnowledgeSourcesService({ db, workflows, allowPrivateNetwork, maxApiSourcesPerAccount: config.limits.apiSourcesPerAccount });
  const knowledgeBases = new KnowledgeBasesService({ db, sources: knowledgeSources, retrieval: knowledgeRetrieval });
  const knowledgeFiles = new KnowledgeFilesService({ db, limits: config.knowledge });
  const knowledgeIngestion = new KnowledgeIngestionService({ db, accounts, events, knowledge: config.knowledge, allowPrivateNetwork, log });
  const knowledgeRecords = new KnowledgeRecordsService({ db, workflows, events, ingestion: knowledgeIngestion, log });
  // The gap report embeds many questions at once: on the backfill's endpoint, never ahead of a customer's query.
  const knowledgeGaps = new KnowledgeGapsService({ db, embeddings: embeddings?.backfill, log });
  return { knowledgeBases, knowledgeRecords, knowledgeGaps, knowledgeSources, knowledgeFiles, knowledgeIngestion, knowledgeRetrieval, knowledgeEmbedding, queryEmbeddings: embeddings?.query, backfillEmbeddings: embeddings?.backfill };
}
