import { Context } from '@temporalio/activity';
import type { KnowledgeIngestionService } from '../src/knowledge/knowledge-ingestion.service';
import type { KnowledgeEmbeddingService } from '../src/knowledge/knowledge-embedding.service';
import { asActivity } from './activity-errors';

const workflowId = () => Context.current().info.workflowExecution!.workflowId;

export function createKnowledgeActivities(deps: { knowledgeIngestion: KnowledgeIngestionService; knowledgeEmbedding: KnowledgeEmbeddingService }) {
  const svc = deps.knowledgeIngestion;
  return {
    /** Marks the source indexing and fixes the version this sync builds (null: the source is gone). */
    async beginKnowledgeSync(input: { sourceId: string; version?: number }) {
      return asActivity(() => svc.beginSync(input));
    },
    /** Fetches, parses, chunks and indexes the source into `version`, beside the live version. */
    async indexKnowledgeSource(input: { sourceId: string; version: number }) {
      return asActivity(() => svc.indexSource({ ...input, heartbeat: (d: unknown) => Context.current().heartbeat(d) }));
    },
    /** Swaps `version` in and emits knowledge.source.ready (once, whatever the retries). */
    async publishKnowledgeSource(input: { sourceId: string; version: number; passages: number; totalLength: number; analyzers?: string[] }) {
      return asActivity(() => svc.publishSync({ ...input, workflowId: workflowId() }));
    },
    /** Embeds the live version's passages that have no vector yet, resuming after the last heartbeated ordinal. */
    async embedKnowledgeSource(input: { sourceId: string; version: number }) {
      const ctx = Context.current();
      const resumed = ctx.info.heartbeatDetails as { after?: number } | undefined;
      return asActivity(() =>
        deps.knowledgeEmbedding.embedSource({ ...input, resumeAfter: resumed?.after, heartbeat: (d) => ctx.heartbeat(d) }),
      );
    },
    /** Drops the partial version, marks the source failed and emits knowledge.source.failed. */
    async failKnowledgeSync(input: { sourceId: string; version: number; code: string; message: string }) {
      return asActivity(() => svc.failSync({ ...input, workflowId: workflowId() }));
    },
  };
}
