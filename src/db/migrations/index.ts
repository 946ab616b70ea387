import type { Migration } from 'kysely';
import * as createFoundation from './20261121T235000-create-foundation';
import * as createSms from './20261122T020000-create-sms';
import * as createKnowledge from './20261122T010000-create-knowledge';
import * as createKnowledgeEmbeddings from './20261123T090000-create-knowledge-embeddings';

/**
 * Every migration, listed explicitly (no filesystem scan, so bundling is safe). Names sort by time;
 * each area appends its own line.
 */
export const migrations: Record<string, Migration> = {
  '20261121T235000-create-foundation': createFoundation,
  '20261122T020000-create-sms': createSms,
  '20261122T010000-create-knowledge': createKnowledge,
  '20261123T090000-create-knowledge-embeddings': createKnowledgeEmbeddings,
};
