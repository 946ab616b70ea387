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

/** The knowledge area's services, wired once (createServices spreads them in). */
export function createKnowledgeServices(deps: { config: Config; db: Kysely<DB>; accounts: AccountsService; workflows: WorkflowGateway; events: EventsService; log?: Logger }) {
  const { config, db, accounts, workflows, events, log } = deps;
  const allowPrivateNetwork = config.network.allowPrivate;
  const knowledgeRetrieval = new KnowledgeRetrievalService({ db, accounts, allowPrivateNetwork, apiTimeoutMs: config.knowledge.apiTimeoutMs, log });
  const knowledgeSources = new KnowledgeSourcesService({ db, workflows, allowPrivateNetwork, maxApiSourcesPerAccount: config.limits.apiSourcesPerAccount });
  const knowledgeBases = new KnowledgeBasesService({ db, sources: knowledgeSources, retrieval: knowledgeRetrieval });
  const knowledgeFiles = new KnowledgeFilesService({ db, limits: config.knowledge });
  const knowledgeIngestion = new KnowledgeIngestionService({ db, accounts, events, knowledge: config.knowledge, allowPrivateNetwork, log });
  return { knowledgeBases, knowledgeSources, knowledgeFiles, knowledgeIngestion, knowledgeRetrieval };
}
