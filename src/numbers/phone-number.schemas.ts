import type { Selectable } from 'kysely';
import type { PhoneNumberTable } from '../db/tables/sms';
import { z } from '../domain/api-schema';
import { VoiceCallFlowSchema, type VoiceCallFlow } from './call-flow.schemas';

/** The phone number object: the API's response schema, the presenter's type and the OpenAPI entry. */
export const PhoneNumberSchema = z
  .object({
    id: z.string().describe('pn_ prefix'),
    object: z.literal('phone_number'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    number: z.string(),
    country: z.string().nullable(),
    agent_id: z.string().nullable().describe("live agent answering inbound messages (attached over the API or in the console)"),
    help_text: z.string().nullable(),
    voice_call_flow: VoiceCallFlowSchema.nullable().describe("what an inbound call hears and who answers it (set over the API, in the console or the CLI); null: no calls"),
    created_at: z.string(),
  })
  .openapi('PhoneNumber');

export type PhoneNumberObject = z.infer<typeof PhoneNumberSchema>;

export const toPhoneNumberObject = (row: Selectable<PhoneNumberTable>): PhoneNumberObject => ({
  id: row.id,
  object: 'phone_number',
  livemode: row.livemode,
  number: row.number,
  country: row.country,
  agent_id: row.agent_id,
  help_text: row.help_text,
  voice_call_flow: (row.voice_call_flow as VoiceCallFlow | null) ?? null,
  created_at: row.created_at.toISOString(),
});
