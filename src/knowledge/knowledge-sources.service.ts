import { ScheduleOverlapPolicy } from '@temporalio/client';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { KnowledgeRepo } from './knowledge.repo';
import { KnowledgeRecordRepo } from './knowledge-record.repo';
import type { PageParams } from '../db/pagination';
import type { KnowledgeRecordInput, KnowledgeRefresh, KnowledgeSourceType } from '../db/tables/knowledge';
import { AppError, notFound, referenceMissing } from '../domain/errors';
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
import type { ListObject } from '../domain/api-schema';
import { toKnowledgeSourceObject, type KnowledgeSourceObject } from './knowledge-source.schemas';
import { REFRESH_INTERVAL_MS } from './refresh-cadence';
import { createWithinQuota } from '../accounts/account-quotas';
import { scopeOf, type Scope } from '../domain/principal';

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
  private readonly records = new KnowledgeRecordRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: WorkflowGateway;
      allowPrivateNetwork: boolean;
      /** api sources an account may have; unlimited when absent. */
      maxApiSourcesPerAccount?: number;
    },
  ) {}

  private async getBase(scope: Scope, baseId: string) {
    const base = await this.repo.getBaseById(this.deps.db, scope, baseId);
    if (!base) throw notFound('knowledge base', baseId);
    return base;
  }

  async getSourceRow(input: Scope & { knowledgeBaseId: string; sourceId: string }) {
    const row = await this.repo.getSourceById(this.deps.db, scopeOf(input), input.sourceId);
    if (!row || row.knowledge_base_id !== input.knowledgeBaseId) throw notFound('knowledge source', input.sourceId, 'src');
    return row;
  }

  async getSource(input: Scope & { knowledgeBaseId: string; sourceId: string }): Promise<KnowledgeSourceObject> {
    return toKnowledgeSourceObject(await this.getSourceRow(input));
  }

  async listSources(input: Scope & { knowledgeBaseId: string; page: PageParams }): Promise<ListObject<KnowledgeSourceObject>> {
    await this.getBase(scopeOf(input), input.knowledgeBaseId);
    const page = await this.repo.listSources(this.deps.db, scopeOf(input), input.knowledgeBaseId, input.page);
    return { object: 'list' as const, data: page.data.map(toKnowledgeSourceObject), has_more: page.has_more };
  }

  async addSource(input: AddSourceInput): Promise<KnowledgeSourceObject> {
    const { db } = this.deps;
    const accountId = input.principal.accountId;
    const scope = scopeOf(input.principal);
    await this.getBase(scope, input.knowledgeBaseId);
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
      const file = await this.repo.getFileById(db, scope, input.file_id!);
      if (!file) throw referenceMissing('file', input.file_id!, 'file_id');
    } else {
      need('records');
      forbid('url', 'file_id', 'timeout_ms');
    }
    const refresh = input.refresh ?? 'weekly';
    const quota = { accountId, kind: 'api_sources' as const, limit: input.type === 'api' ? this.deps.maxApiSourcesPerAccount : undefined };
    const row = await createWithinQuota(db, quota, (trx) => this.repo.insertSource(trx, {
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
    }));
    try {
      // A new source has no schedule yet: only a cadence creates one.
      if (refresh !== 'manual') await this.upsertRefreshSchedule({ sourceId: row.id, refresh, accountId, createdAt: row.created_at });
      await this.startSync(row.id, row.sync_seq, 'create');
    } catch (err) {
      if (refresh !== 'manual') await this.deleteRefreshSchedule(row.id);
      await this.repo.deleteSource(db, row.id);
      throw err;
    }
    return toKnowledgeSourceObject(row);
  }

  async updateSource(input: UpdateSourceInput): Promise<KnowledgeSourceObject> {
    const current = await this.getSourceRow({ ...scopeOf(input.principal), knowledgeBaseId: input.knowledgeBaseId, sourceId: input.sourceId });
    if (input.records !== undefined && current.type !== 'record') {
      throw new AppError('parameter_unprocessable', 'Invalid records: only record sources take records', { param: 'records' });
    }
    if (input.timeout_ms !== undefined && current.type !== 'api') {
      throw new AppError('parameter_unprocessable', 'Invalid timeout_ms: only api sources take a timeout', { param: 'timeout_ms' });
    }
    await this.deps.db.transaction().execute(async (tx) => {
      await this.repo.updateSource(tx, current.id, { refresh: input.refresh, metadata: input.metadata, timeout_ms: input.timeout_ms });
      if (input.records !== undefined) {
        // The whole set replaced under the source's lock (a one-record edit waits for it, then re-syncs).
        await this.records.lockSource(tx, { ...scopeOf(input.principal), knowledgeBaseId: input.knowledgeBaseId, sourceId: current.id });
        await this.records.replaceRecords(tx, current.id, input.records);
        await this.records.setRecordCount(tx, current.id, input.records.length);
      }
    });
    if (input.refresh && input.refresh !== current.refresh) {
      await this.upsertRefreshSchedule({ sourceId: current.id, refresh: input.refresh, accountId: current.account_id, createdAt: current.created_at });
    }
    if (input.records !== undefined) await this.resync(current.id, 'update');
    return this.getSource({ ...scopeOf(input.principal), knowledgeBaseId: input.knowledgeBaseId, sourceId: input.sourceId });
  }

  async reindexSource(input: Scope & { knowledgeBaseId: string; sourceId: string }): Promise<KnowledgeSourceObject> {
    const current = await this.getSourceRow(input);
    await this.resync(current.id, 'reindex');
    return this.getSource(input);
  }

  async deleteSource(input: Scope & { knowledgeBaseId: string; sourceId: string }) {
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
