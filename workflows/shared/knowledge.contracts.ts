import { defineWorkflowContract } from './workflow-contract';

export interface KnowledgeSyncInput {
  sourceId: string;
  /** The version to build, allocated by the API call that started the sync; scheduled runs allocate one. */
  version?: number;
  trigger: 'create' | 'reindex' | 'update' | 'schedule';
}

export interface KnowledgeSyncResult {
  status: 'ready' | 'failed' | 'skipped';
  version?: number;
  passages?: number;
  /** Passages with a vector once the semantic backfill ended (absent when embeddings are off). */
  embeddedPassages?: number;
  /** The backfill failed: the source stays `ready` and searchable lexically; the next sync tries again. */
  embeddingError?: { code: string; message: string };
  error?: { code: string; message: string };
}

/** One sync of one knowledge source (build a version beside the live one, then swap it in). */
export const knowledgeSyncWorkflowContract = defineWorkflowContract<KnowledgeSyncInput, KnowledgeSyncResult>('knowledgeSyncWorkflow');

/** One knowledge sync (building `version` of a source); scheduled runs get Temporal's timestamp suffix. */
export const knowledgeSyncWorkflowId = (sourceId: string, version: number) => `knowledge-sync:${sourceId}:v${version}`;
export const knowledgeScheduledSyncWorkflowId = (sourceId: string) => `knowledge-sync:${sourceId}:scheduled`;
export const knowledgeRefreshScheduleId = (sourceId: string) => `knowledge-refresh:${sourceId}`;

export interface KnowledgeEmbedInput {
  sourceId: string;
  /** The live version to embed (a version no longer live is left alone: `stale`). */
  version: number;
}

export interface KnowledgeEmbedResult {
  /** `off`: embeddings disabled; `stale`: the version is no longer live; `done`: every passage has its vectors. */
  status: 'off' | 'stale' | 'done';
  embeddedPassages: number;
  /** Passage vectors computed (vectors only missing their sentence vectors do not count). */
  computed: number;
}

/** The embedding backfill alone for a source's live version (no fetch, no new version): the boot sweep's. */
export const knowledgeEmbedWorkflowContract = defineWorkflowContract<KnowledgeEmbedInput, KnowledgeEmbedResult>('knowledgeEmbedWorkflow');

/** One per source: two sweeps never embed the same source at once; a later sweep may run it again. */
export const knowledgeEmbedWorkflowId = (sourceId: string) => `knowledge-embed:${sourceId}`;
