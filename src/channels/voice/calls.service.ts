import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema';
import type { CallStatus } from '../../db/tables/calls';
import type { PageParams } from '../../db/pagination';
import type { ListObject } from '../../domain/api-schema';
import { notFound } from '../../domain/errors';
import { scopeOf, type Scope } from '../../domain/principal';
import { CallRepo } from './call.repo';
import { toCallObject, type CallObject } from './call.schemas';

/**
 * The account's voice calls as API objects (read-only: calls are made by callers and moved by the
 * provider's webhooks, in VoiceCallsService). Each has its status, direction, numbers, duration, the
 * conversation holding its transcript and its recording once processed.
 */
export class CallsService {
  private readonly repo = new CallRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  async getCall(input: Scope & { callId: string }): Promise<CallObject> {
    const row = await this.repo.getCallInScope(this.deps.db, scopeOf(input), input.callId);
    if (!row) throw notFound('call', input.callId);
    return toCallObject(row);
  }

  async listCalls(input: Scope & { page: PageParams; phoneNumberId?: string; conversationId?: string; status?: CallStatus }): Promise<ListObject<CallObject>> {
    const page = await this.repo.listCalls(this.deps.db, scopeOf(input), input.page, input);
    return { object: 'list', data: page.data.map(toCallObject), has_more: page.has_more };
  }
}
