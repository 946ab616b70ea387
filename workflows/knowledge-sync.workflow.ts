import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createKnowledgeActivities } from '../activities/knowledge.activities';
import { dbActivity, embeddingActivity, ingestionActivity } from './shared/activity-options';
import type { KnowledgeSyncInput, KnowledgeSyncResult } from './shared/knowledge.contracts';

type KnowledgeActivities = ReturnType<typeof createKnowledgeActivities>;
const { beginKnowledgeSync, publishKnowledgeSource, failKnowledgeSync } = proxyActivities<KnowledgeActivities>(dbActivity);
const { indexKnowledgeSource } = proxyActivities<KnowledgeActivities>(ingestionActivity);
const { embedKnowledgeSource } = proxyActivities<KnowledgeActivities>(embeddingActivity);

function failureOf(err: unknown): { code: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type && cause.type !== 'Error') {
    return { code: cause.type, message: cause.message };
  }
  return { code: 'sync_failed', message: cause instanceof Error ? cause.message : 'The source could not be synced' };
}

/**
 * One sync of one knowledge source: build a new version beside the live one (crawl / parse / chunk /
 * index), then swap it in atomically and emit knowledge.source.ready; on failure drop the partial version,
 * mark the source failed and emit knowledge.source.failed. Once live (searchable lexically), the version's
 * passages are embedded (vectors of unchanged passages reused); a failed backfill leaves the source ready.
 * The input carries ids only.
 */
export async function knowledgeSyncWorkflow(input: KnowledgeSyncInput): Promise<KnowledgeSyncResult> {
  const begun = await beginKnowledgeSync({ sourceId: input.sourceId, version: input.version });
  if (!begun) return { status: 'skipped' };
  const { version } = begun;
  let indexed: { passages: number; totalLength: number; analyzers?: string[] };
  try {
    indexed = await indexKnowledgeSource({ sourceId: input.sourceId, version });
    await publishKnowledgeSource({ sourceId: input.sourceId, version, passages: indexed.passages, totalLength: indexed.totalLength, analyzers: indexed.analyzers });
  } catch (err) {
    const error = failureOf(err);
    await failKnowledgeSync({ sourceId: input.sourceId, version, ...error });
    return { status: 'failed', version, error };
  }
  try {
    const embedded = await embedKnowledgeSource({ sourceId: input.sourceId, version });
    return { status: 'ready', version, passages: indexed.passages, ...(embedded.status === 'off' ? {} : { embeddedPassages: embedded.embeddedPassages }) };
  } catch (err) {
    return { status: 'ready', version, passages: indexed.passages, embeddingError: failureOf(err) };
  }
}
