import type { Kysely } from 'kysely';
import type { AgentsService } from '../agents/agents.service';
import { parseRecipient } from '../domain/phone-addresses';
import { connectAgentOf, takeoverNotLast, VoiceCallFlowSchema, type VoiceCallFlowInput } from './call-flow.schemas';
import { PhoneNumberRepo } from './phone-number.repo';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import type { ListObject } from '../domain/api-schema';
import { toPhoneNumberObject, type PhoneNumberObject } from './phone-number.schemas';
import { scopeOf, type Scope } from '../domain/principal';

/**
 * The account's phone numbers. They are provisioned by operators (CLI, console); over the API a number's
 * SMS agent and call flow can be changed. Outbound messages may use one as `from`, inbound messages to
 * one belong to its account.
 */
export class PhoneNumbersService {
  private readonly repo = new PhoneNumberRepo();

  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService }) {}

  async provisionPhoneNumber(input: Scope & { number: string; helpText?: string; agentId?: string }): Promise<PhoneNumberObject> {
    const parsed = parseRecipient(input.number);
    if (!parsed.ok) throw new AppError('parameter_invalid', `Invalid number: ${parsed.reason}`, { param: 'number' });
    if (await this.repo.getPhoneNumberByNumber(this.deps.db, parsed.number)) {
      throw new AppError('resource_conflict', `${parsed.number} is already provisioned`, { param: 'number' });
    }
    const row = await this.repo.insertPhoneNumber(this.deps.db, {
      id: newId(IdPrefix.phoneNumber),
      account_id: input.accountId, livemode: input.livemode,
      number: parsed.number,
      country: parsed.country,
      help_text: input.helpText ?? null,
      agent_id: input.agentId ?? null,
    });
    return toPhoneNumberObject(row);
  }

  async getPhoneNumber(input: Scope & { phoneNumberId: string }): Promise<PhoneNumberObject> {
    const row = await this.repo.getPhoneNumberById(this.deps.db, scopeOf(input), input.phoneNumberId);
    if (!row) throw notFound('phone number', input.phoneNumberId);
    return toPhoneNumberObject(row);
  }

  async listPhoneNumbers(input: Scope & { page: PageParams }): Promise<ListObject<PhoneNumberObject>> {
    const page = await this.repo.listPhoneNumbers(this.deps.db, scopeOf(input), input.page);
    return { object: 'list' as const, data: page.data.map(toPhoneNumberObject), has_more: page.has_more };
  }

  /**
   * Attaches a live agent to answer the number's inbound messages (null detaches). The agent must be the
   * account's, live, and configured for sms (422 agent_not_live / channel_not_supported otherwise).
   */
  async attachAgent(input: Scope & { phoneNumberId: string; agentId: string | null }): Promise<PhoneNumberObject> {
    return this.updatePhoneNumber(input);
  }

  /**
   * Changes what the API may change of a number: its SMS agent (`agentId`, null detaches) and its call flow
   * (`flow`, null: no calls). Everything is checked before anything is written, so a refused update
   * changes nothing; what is not given stays. One UPDATE writes both; the number is read first only when
   * there is an agent or a flow to check (a missing number answers 404 before them).
   */
  async updatePhoneNumber(input: Scope & { phoneNumberId: string; agentId?: string | null; flow?: VoiceCallFlowInput | null }): Promise<PhoneNumberObject> {
    const scope = scopeOf(input);
    if (input.agentId === undefined && input.flow === undefined) return this.getPhoneNumber(input);
    if (input.agentId || input.flow) await this.getPhoneNumber(input);
    if (input.agentId) await this.checkAgentTakes(scope, input.agentId, 'sms', 'agent_id');
    const flow = input.flow === undefined || input.flow === null ? input.flow : await this.checkCallFlow(scope, input.flow);
    const row = await this.repo.updatePhoneNumber(this.deps.db, scope, input.phoneNumberId, { agentId: input.agentId, flow });
    if (!row) throw notFound('phone number', input.phoneNumberId);
    return toPhoneNumberObject(row);
  }

  /** The account's numbers answered by `agentId`, oldest first. */
  /** The numbers with this agent attached (null: those with none). */
  async listNumbersOfAgent(input: Scope & { agentId: string | null }) {
    return this.repo.listNumbersOfAgent(this.deps.db, scopeOf(input), input.agentId);
  }

  /**
   * Sets what an inbound call to the number hears and who answers it (null: the number takes no calls).
   * The flow is validated (400 naming the field at fault; 422 when an action that takes the call over is not
   * last); a connect_agent action's agent must be the
   * account's, live and configured for voice (422 agent_not_live / channel_not_supported).
   */
  async setVoiceCallFlow(input: Scope & { phoneNumberId: string; flow: VoiceCallFlowInput | null }): Promise<PhoneNumberObject> {
    return this.updatePhoneNumber(input);
  }

  /**
   * The flow as stored once valid: 400 naming the field at fault, 422 for an action order or an agent it
   * cannot take.
   */
  private async checkCallFlow(scope: Scope, flow: VoiceCallFlowInput): Promise<Record<string, unknown>> {
    const parsed = VoiceCallFlowSchema.safeParse(flow);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const param = ['voice_call_flow', ...issue.path.map(String)].join('.');
      throw new AppError('parameter_invalid', `Invalid ${param}: ${issue.message}`, { param });
    }
    const early = takeoverNotLast(parsed.data);
    if (early) {
      const param = `voice_call_flow.actions.${early.index}.action`;
      throw new AppError('parameter_unprocessable', `Invalid ${param}: ${early.action} takes the call over, so it must be the last action`, { param });
    }
    const connect = connectAgentOf(parsed.data);
    if (connect) await this.checkAgentTakes(scope, connect.agent_id, 'voice', 'voice_call_flow.actions');
    return parsed.data;
  }

  /**
   * The agent must be the scope's, live, and configured for `channel` (422 parameter_unprocessable /
   * agent_not_live / channel_not_supported). Versions are cached, so an agent used for SMS and the flow
   * costs one version read.
   */
  private async checkAgentTakes(scope: Scope, agentId: string, channel: 'sms' | 'voice', param: string): Promise<void> {
    const live = await this.deps.agents.getLiveVersion({ ...scope, agentId, param, attached: true });
    if (!live.config.channels.includes(channel)) {
      throw new AppError('channel_not_supported', `Agent ${agentId} is not configured for the ${channel} channel (it has ${live.config.channels.join(', ')})`, { param });
    }
  }

  /** The number's row whoever owns it (inbound routing). */
  async findNumber(input: { number: string }) {
    return this.repo.getPhoneNumberByNumber(this.deps.db, input.number);
  }

  /** The number's row when it belongs to the scope (the account, in that mode). */
  async findAccountNumber(input: Scope & { number: string }) {
    const row = await this.repo.getPhoneNumberByNumber(this.deps.db, input.number);
    return row && row.account_id === input.accountId && row.livemode === input.livemode ? row : undefined;
  }
}
