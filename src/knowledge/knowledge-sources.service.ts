import { ScheduleOverlapPolicy } from '@temporalio/client';
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../db/schema';
import { KnowledgeRepo } from './knowledge.repo';
import type { PageParams } from '../db/pagination';
import type { KnowledgeRecordInput, KnowledgeRefresh, KnowledgeSourceTable, KnowledgeSourceType } from '../db/tables/knowledge';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import type { Principal } from '../domain/principal';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import {
  knowledgeRefreshScheduleId,
  knowledgeScheduledSyncWorkflowId,
  knowledgeSyncWorkflowContract,
  knowledgeSyncWorkflowId,
  type KnowledgeSyncInput,
} from '../../workflows/shared/knowledge.contracts';
import { assertOutboundUrl } from '../platform/outbound-http';

const DAY_MS = 24 * 60 * 60 * 1000;
export const REFRESH_INTERVAL_MS: Record<Exclude<KnowledgeRefresh, 'manual'>, number> = { daily: DAY_MS, weekly: 7 * DAY_MS };

type SourceRow = Omit<Selectable<KnowledgeSourceTable>, 'records'> & { records?: unknown };

/**
 * Refresh runs are at fixed points of the source's cadence, phased by its creation time (the schedule's
 * interval offset), so the next sync time is computed, not stored.
 */
export function nextSyncAt(row: { refresh: KnowledgeRefresh; created_at: Date }, now = Date.now()): Date | null {
  if (row.refresh === 'manual') return null;
  const every = REFRESH_INTERVAL_MS[row.refresh];
  const offset = row.created_at.getTime() % every;
  return new Date((Math.floor((now - offset) / every) + 1) * every + offset);
}

export const toSourceObject = (row: SourceRow) => ({
  id: row.id,
  object: 'knowledge_source' as const,
  knowledge_base_id: row.knowledge_base_id,
  type: row.type,
  url: row.url,
  file_id: row.file_id,
  ...(row.type === 'record' && Array.isArray(row.records) ? { record_count: row.records.length } : {}),
  ...(row.type === 'api' ? { timeout_ms: row.timeout_ms } : {}),
  metadata: row.metadata,
  refresh: row.refresh,
  status: row.status,
  error: row.error_code ? { code: row.error_code, message: row.error_message ?? row.error_code } : null,
  passage_count: row.passage_count,
  embedded_passages: row.embedded_passages,
  version: row.active_version,
  last_synced_at: row.last_synced_at?.toISOString() ?? null,
  next_sync_at: nextSyncAt(row)?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export interface AddSourceInput {
  principal: Principal;
  knowledgeBaseId: string;
  type: KnowledgeSourceType;
  url?: string;
  file_id?: string;
  records?: KnowledgeRecordInput[];
  refresh?: KnowledgeRefresh;
  metadata?: Record<string, string>;
  timeout_ms?: number;
}

export interface UpdateSourceInput {
  principal: Principal;
  knowledgeBaseId: string;
  sourceId: string;
  refresh?: KnowledgeRefresh;
  metadata?: Record<string, string>;
  records?: KnowledgeRecordInput[];
  timeout_ms?: number;
}

/**
 * Knowledge sources: adding, changing, re-indexing and deleting them, each sync as a workflow, and the
 * refresh cadence as a Temporal Schedule per source (created, updated and deleted with the source).
 */
export class KnowledgeSourcesService {
  private readonly repo = new KnowledgeRepo();

  constructor(private readonly deps: { db: Kysely<DB>; workflows: WorkflowGateway; allowPrivateNetwork: boolean }) {}

  private async getBase(accountId: string, baseId: string) {
    const base = await this.repo.getBaseById(this.deps.db, accountId, baseId);
    if (!base) throw notFound('knowledge base', baseId);
    return base;
  }

  async getSourceRow(input: { accountId: string; knowledgeBaseId: string; sourceId: string }) {
    const row = await this.repo.getSourceById(this.deps.db, input.accountId, input.sourceId);
    if (!row || row.knowledge_base_id !== input.knowledgeBaseId) throw notFound('knowledge source', input.sourceId, 'src');
    return row;
  }

  async getSource(input: { accountId: string; knowledgeBaseId: string; sourceId: string }) {
    return toSourceObject(await this.getSourceRow(input));
  }

  async listSources(input: { accountId: string; knowledgeBaseId: string; page: PageParams }) {
    await this.getBase(input.accountId, input.knowledgeBaseId);
    const page = await this.repo.listSources(this.deps.db, input.accountId, input.knowledgeBaseId, input.page);
    return { object: 'list' as const, data: page.data.map(toSourceObject), has_more: page.has_more };
  }

  async addSource(input: AddSourceInput) {
    const { db } = this.deps;
    const accountId = input.principal.accountId;
    await this.getBase(accountId, input.knowledgeBaseId);
    const need = (field: 'url' | 'file_id' | 'records') => {
      if (input[field] === undefined) throw new AppError('parameter_missing', `Missing required parameter: ${field} (for ${input.type} sources)`, { param: field });
    };
    const forbid = (...fields: ('url' | 'file_id' | 'records' | 'timeout_ms')[]) => {
      for (const f of fields) {
        if (input[f] !== undefined) throw new AppError('parameter_invalid', `Invalid ${f}: not used by ${input.type} sources`, { param: f });
      }
    };
    if (input.type === 'url' || input.type === 'api') {
      need('url');
      forbid('file_id', 'records', ...(input.type === 'url' ? (['timeout_ms'] as const) : []));
      assertOutboundUrl(input.url!, { allowPrivate: this.deps.allowPrivateNetwork, requireHttps: input.principal.mode === 'live' });
    } else if (input.type === 'document') {
      need('file_id');
      forbid('url', 'records', 'timeout_ms');
      const file = await this.repo.getFileById(db, accountId, input.file_id!);
      if (!file) throw notFound('file', input.file_id!, 'file_id');
    } else {
      need('records');
      forbid('url', 'file_id', 'timeout_ms');
    }
    const refresh = input.refresh ?? 'weekly';
    const row = await this.repo.insertSource(db, {
      id: newId(IdPrefix.source),
      account_id: accountId,
      knowledge_base_id: input.knowledgeBaseId,
      type: input.type,
      livemode: input.principal.mode === 'live',
      url: input.url ?? null,
      file_id: input.file_id ?? null,
      records: input.records ?? null,
      refresh,
      metadata: input.metadata ?? {},
      timeout_ms: input.timeout_ms ?? null,
    });
    try {
      await this.upsertRefreshSchedule({ sourceId: row.id, refresh, accountId, createdAt: row.created_at });
      await this.startSync(row.id, row.sync_seq, 'create');
    } catch (err) {
      await this.deleteRefreshSchedule(row.id);
      await this.repo.deleteSource(db, row.id);
      throw err;
    }
    return toSourceObject(row);
  }

  async updateSource(input: UpdateSourceInput) {
    const current = await this.getSourceRow({ accountId: input.principal.accountId, knowledgeBaseId: input.knowledgeBaseId, sourceId: input.sourceId });
    if (input.records !== undefined && current.type !== 'record') {
      throw new AppError('parameter_invalid', 'Invalid records: only record sources take records', { param: 'records' });
    }
    if (input.timeout_ms !== undefined && current.type !== 'api') {
      throw new AppError('parameter_invalid', 'Invalid timeout_ms: only api sources take a timeout', { param: 'timeout_ms' });
    }
    await this.repo.updateSource(this.deps.db, current.id, {
      refresh: input.refresh,
      metadata: input.metadata,
      records: input.records,
      timeout_ms: input.timeout_ms,
    });
    if (input.refresh && input.refresh !== current.refresh) {
      await this.upsertRefreshSchedule({ sourceId: current.id, refresh: input.refresh, accountId: current.account_id, createdAt: current.created_at });
    }
    if (input.records !== undefined) await this.resync(current.id, 'update');
    return this.getSource({ accountId: input.principal.accountId, knowledgeBaseId: input.knowledgeBaseId, sourceId: input.sourceId });
  }

  async reindexSource(input: { accountId: string; knowledgeBaseId: string; sourceId: string }) {
    const current = await this.getSourceRow(input);
    await this.resync(current.id, 'reindex');
    return this.getSource(input);
  }

  async deleteSource(input: { accountId: string; knowledgeBaseId: string; sourceId: string }) {
    const current = await this.getSourceRow(input);
    await this.deleteRefreshSchedule(current.id);
    await this.repo.deleteSource(this.deps.db, current.id);
    return { id: current.id, object: 'knowledge_source', deleted: true as const };
  }

  /** Deletes the schedules of every source of a base (the rows go with the base). */
  async deleteSchedulesOfBase(baseId: string) {
    for (const id of await this.repo.listSourceIdsOfBase(this.deps.db, baseId)) await this.deleteRefreshSchedule(id);
  }

  private async resync(sourceId: string, trigger: KnowledgeSyncInput['trigger']) {
    const version = await this.repo.allocateSyncVersion(this.deps.db, sourceId);
    if (version === undefined) throw notFound('knowledge source', sourceId, 'src');
    await this.startSync(sourceId, version, trigger);
  }

  private async startSync(sourceId: string, version: number, trigger: KnowledgeSyncInput['trigger']) {
    await this.deps.workflows.start(knowledgeSyncWorkflowContract, {
      workflowId: knowledgeSyncWorkflowId(sourceId, version),
      input: { sourceId, version, trigger },
      memo: { sourceId },
    });
  }

  /**
   * The refresh cadence as a Temporal Schedule (`knowledge-refresh:{src}`): an interval of one day or one
   * week phased by the source's creation time, overlapping runs skipped. `manual` removes it.
   */
  async upsertRefreshSchedule(input: { sourceId: string; refresh: KnowledgeRefresh; accountId: string; createdAt: Date }) {
    if (input.refresh === 'manual') return this.deleteRefreshSchedule(input.sourceId);
    const every = REFRESH_INTERVAL_MS[input.refresh];
    const spec = { intervals: [{ every, offset: input.createdAt.getTime() % every }] };
    await this.deps.workflows.upsertSchedule(knowledgeSyncWorkflowContract, {
      scheduleId: knowledgeRefreshScheduleId(input.sourceId),
      spec,
      workflowId: knowledgeScheduledSyncWorkflowId(input.sourceId),
      input: { sourceId: input.sourceId, trigger: 'schedule' },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1h' },
      memo: { sourceId: input.sourceId, accountId: input.accountId },
    });
  }

  async deleteRefreshSchedule(sourceId: string) {
    await this.deps.workflows.deleteSchedule(knowledgeRefreshScheduleId(sourceId));
  }
}
