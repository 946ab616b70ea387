import type { Kysely } from 'kysely';
import type { AgentsService } from '../agents/agents.service';
import { parseRecipient } from '../domain/phone-addresses';
import { connectAgentOf, VoiceCallFlowSchema, type VoiceCallFlowInput } from './call-flow.schemas';
import { PhoneNumberRepo } from './phone-number.repo';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import type { ListObject } from '../domain/api-schema';
import { toPhoneNumberObject, type PhoneNumberObject } from './phone-number.schemas';
import { scopeOf, type Scope } from '../domain/principal';

/**
 * The account's phone numbers. They are provisioned by operators (CLI, console) and read-only through
 * the API; outbound messages may use one as `from`, inbound messages to one belong to its account.
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
    await this.getPhoneNumber(input);
    if (input.agentId !== null) {
      const live = await this.deps.agents.getLiveVersion({ ...scopeOf(input), agentId: input.agentId });
      if (!live.config.channels.includes('sms')) {
        throw new AppError('channel_not_supported', `Agent ${input.agentId} is not configured for the sms channel (it has ${live.config.channels.join(', ')})`, { param: 'agent_id' });
      }
    }
    const row = await this.repo.setAgent(this.deps.db, scopeOf(input), input.phoneNumberId, input.agentId);
    if (!row) throw notFound('phone number', input.phoneNumberId);
    return toPhoneNumberObject(row);
  }

  /** The account's numbers answered by `agentId`, oldest first. */
  async listNumbersOfAgent(input: Scope & { agentId: string }) {
    return this.repo.listNumbersOfAgent(this.deps.db, scopeOf(input), input.agentId);
  }

  /**
   * Sets what an inbound call to the number hears and who answers it (null: the number takes no calls).
   * The flow is validated (400 naming the field at fault); a connect_agent action's agent must be the
   * account's, live and configured for voice (422 agent_not_live / channel_not_supported).
   */
  async setVoiceCallFlow(input: Scope & { phoneNumberId: string; flow: VoiceCallFlowInput | null }): Promise<PhoneNumberObject> {
    await this.getPhoneNumber(input);
    let stored: Record<string, unknown> | null = null;
    if (input.flow !== null) {
      const parsed = VoiceCallFlowSchema.safeParse(input.flow);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const param = ['voice_call_flow', ...issue.path.map(String)].join('.');
        throw new AppError('parameter_invalid', `Invalid ${param}: ${issue.message}`, { param });
      }
      const connect = connectAgentOf(parsed.data);
      if (connect) {
        const live = await this.deps.agents.getLiveVersion({ ...scopeOf(input), agentId: connect.agent_id });
        if (!live.config.channels.includes('voice')) {
          throw new AppError('channel_not_supported', `Agent ${connect.agent_id} is not configured for the voice channel (it has ${live.config.channels.join(', ')})`, { param: 'voice_call_flow.actions' });
        }
      }
      stored = parsed.data;
    }
    const row = await this.repo.setVoiceCallFlow(this.deps.db, scopeOf(input), input.phoneNumberId, stored);
    if (!row) throw notFound('phone number', input.phoneNumberId);
    return toPhoneNumberObject(row);
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
