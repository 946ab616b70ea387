import { z } from '../../domain/api-schema';
import type { CallRow } from './call.repo';

/** The call object: the `data` of call.* events. Its id is the provider's call sid. */
export const CallSchema = z
  .object({
    id: z.string().describe("the provider's call sid (CA…)"),
    object: z.literal('call'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    provider: z.literal('twilio'),
    direction: z.literal('inbound'),
    from: z.string(),
    to: z.string(),
    phone_number_id: z.string(),
    status: z.string().describe('queued, initiated, ringing, in-progress, completed, busy, failed, no-answer, canceled'),
    agent_id: z.string().nullable(),
    conversation_id: z.string().nullable().describe('where the call transcript is written (its messages)'),
    transferred_to: z.string().nullable(),
    duration_seconds: z.number().int().nullable(),
    recording: z.object({ sid: z.string(), url: z.string(), duration_seconds: z.number().int().nullable() }).nullable(),
    created_at: z.string(),
    answered_at: z.string().nullable(),
    ended_at: z.string().nullable(),
  })
  .openapi('Call');
export type CallObject = z.infer<typeof CallSchema>;

export const toCallObject = (c: CallRow): CallObject => ({
  id: c.id,
  object: 'call',
  livemode: c.livemode,
  provider: 'twilio',
  direction: c.direction,
  from: c.from_number,
  to: c.to_number,
  phone_number_id: c.phone_number_id,
  status: c.status,
  agent_id: c.agent_id,
  conversation_id: c.conversation_id,
  transferred_to: c.transferred_at ? c.transfer_to : null,
  duration_seconds: c.duration_seconds,
  recording: c.recording_sid && c.recording_url ? { sid: c.recording_sid, url: c.recording_url, duration_seconds: c.recording_duration_seconds } : null,
  created_at: c.created_at.toISOString(),
  answered_at: c.answered_at ? c.answered_at.toISOString() : null,
  ended_at: c.ended_at ? c.ended_at.toISOString() : null,
});

export const CallStatusSchema = z.enum(['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled']);
const optionalInt = z.coerce.number().int().min(0).optional();

/*
 * The provider's webhook parameters (Twilio posts application/x-www-form-urlencoded; only the fields used
 * are read, the rest are ignored as Twilio adds fields over time).
 */
export const IncomingCallParamsSchema = z.object({
  CallSid: z.string().min(1).max(64),
  From: z.string().max(64).default(''),
  To: z.string().min(1).max(64),
  CallStatus: CallStatusSchema.default('ringing'),
});
export type IncomingCallParams = z.infer<typeof IncomingCallParamsSchema>;

export const SpeechResultParamsSchema = z.object({
  CallSid: z.string().min(1).max(64),
  SpeechResult: z.string().max(4000).optional(),
  Confidence: z.coerce.number().min(0).max(1).optional(),
});
export type SpeechResultParams = z.infer<typeof SpeechResultParamsSchema>;

export const CallStatusParamsSchema = z.object({
  CallSid: z.string().min(1).max(64),
  CallStatus: CallStatusSchema,
  CallDuration: optionalInt,
});
export type CallStatusParams = z.infer<typeof CallStatusParamsSchema>;

export const RecordingParamsSchema = z.object({
  CallSid: z.string().min(1).max(64),
  RecordingSid: z.string().min(1).max(64),
  RecordingUrl: z.string().url().max(2000),
  RecordingStatus: z.enum(['in-progress', 'completed', 'absent', 'failed']).default('completed'),
  RecordingDuration: optionalInt,
});
export type RecordingParams = z.infer<typeof RecordingParamsSchema>;
