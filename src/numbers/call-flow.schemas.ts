import { z } from '../domain/api-schema';
import { E164_PATTERN } from '../domain/channels';

const E164 = z.string().regex(E164_PATTERN, 'an E.164 number such as +14155550123');
/**
 * Spoken text: not blank, checked as the document states it (a pattern, no trimming, so a schema-valid
 * " x " is accepted as given and a blank one is refused by the pattern the document shows).
 */
const spoken = (max: number) => z.string().min(1).max(max).regex(/^[^\u0000]*[^\s\u0000][^\u0000]*$/, 'some text, not only spaces');

/** Speaks a fixed text (a greeting, a notice). */
export const SayActionSchema = z.strictObject({
  action: z.literal('say'),
  text: spoken(1000),
});

/**
 * Hands the call to an agent (SPEC: `{action: connect_agent, agent_id}`): each speech turn starts a run, the
 * reply is spoken, and a handoff transfers the call to `transfer_to`, the number of the agent's handoff queue.
 */
export const ConnectAgentActionSchema = z.strictObject({
  action: z.literal('connect_agent'),
  agent_id: z.string().regex(/^agt_/, 'an agent id (agt_…)'),
  /** Where a handoff transfers the call: the number that answers the agent's handoff queue. */
  transfer_to: E164,
  /** Said while listening for the caller's first question. */
  greeting: spoken(500).default('How can I help you?'),
});

/** Transfers the call to a number (no agent). */
export const DialActionSchema = z.strictObject({
  action: z.literal('dial'),
  number: E164,
});

export const VoiceCallActionSchema = z.discriminatedUnion('action', [SayActionSchema, ConnectAgentActionSchema, DialActionSchema]);
export type VoiceCallAction = z.infer<typeof VoiceCallActionSchema>;

/**
 * A number's call flow: its actions run in order when a call comes in; `connect_agent` and `dial` take the
 * call over, so they may only come last (`takeoverNotLast`: a rule the published schema cannot state, so
 * breaking it is 422, not 400). `record` records the whole call (call.recording.ready when the recording is
 * processed); `language` is the BCP-47 tag used to speak and to recognise speech.
 */
export const VoiceCallFlowSchema = z
  .strictObject({
    actions: z.array(VoiceCallActionSchema).min(1).max(10)
      .describe('run in order; connect_agent and dial take the call over, so only the last action may be one of them (422 otherwise)'),
    record: z.boolean().default(false),
    language: z.string().regex(/^[a-z]{2,3}(-[A-Z]{2})?$/, 'a language tag such as en-US').default('en-US'),
  })
  .openapi('VoiceCallFlow');

export type VoiceCallFlow = z.infer<typeof VoiceCallFlowSchema>;
export type VoiceCallFlowInput = z.input<typeof VoiceCallFlowSchema>;

/** The agent a flow hands calls to, if any. */
export const connectAgentOf = (flow: VoiceCallFlow) => flow.actions.find((a) => a.action === 'connect_agent');


/** The first action that takes the call over before the end of the flow, with its index, if any. */
export function takeoverNotLast(flow: VoiceCallFlow): { index: number; action: VoiceCallAction['action'] } | undefined {
  const index = flow.actions.findIndex((a, i) => (a.action === 'connect_agent' || a.action === 'dial') && i !== flow.actions.length - 1);
  return index === -1 ? undefined : { index, action: flow.actions[index]!.action };
}
