/**
 * The conversation channels and the phone-number shape every channel and the SMS area share, each written
 * once here. Pure values: no I/O, importable from any floor (and from workflows).
 */

/** The channels a conversation can run on (also their order in the API's enum). */
export const CONVERSATION_CHANNELS = ['sms', 'chat', 'email', 'voice'] as const;
export type ConversationChannel = (typeof CONVERSATION_CHANNELS)[number];

/** E.164: `+`, a country code not starting with 0, 7–15 digits in all (validity per plan is libphonenumber's question). */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/** Has the E.164 shape. */
export const isE164 = (value: string) => E164_PATTERN.test(value);

/**
 * The inbound port of a conversation channel adapter (src/channels/<channel>): a customer's message
 * arrived from the channel's source (the SMS area's carrier listener, the inbound email hook, the voice
 * provider's speech webhook) and the adapter posts it to its conversation. Every adapter implements this
 * one interface; it is declared here, below the SMS area and the channels, so the SMS area hands an
 * inbound SMS up to the sms adapter without importing src/channels. The outbound port is ReplyChannel
 * (src/conversations/reply-channels.ts).
 */
export interface InboundChannelPort<TInbound, TResult = void> {
  readonly channel: ConversationChannel;
  receiveInbound(input: TInbound): Promise<TResult>;
}
