import { proxyActivities } from '@temporalio/workflow';
import type { createKnowledgeActivities } from '../activities/knowledge.activities';
import { embeddingActivity } from './shared/activity-options';
import type { KnowledgeEmbedInput, KnowledgeEmbedResult } from './shared/knowledge.contracts';

type KnowledgeActivities = ReturnType<typeof createKnowledgeActivities>;
const { embedKnowledgeSource } = proxyActivities<KnowledgeActivities>(embeddingActivity);

/**
 * The embedding backfill of a source's live version without a sync (nothing fetched, no new version):
 * what the boot sweep starts for sources whose stored vectors lack their sentence vectors. The activity
 * embeds only what is missing and returns `stale` if another version went live meanwhile.
 */
export async function knowledgeEmbedWorkflow(input: KnowledgeEmbedInput): Promise<KnowledgeEmbedResult> {
  return embedKnowledgeSource({ sourceId: input.sourceId, version: input.version });
}
