import type { ReplyChannel, ReplyToShape } from '../../conversations/reply-channels';
import { toSpokenText } from './spoken-text';

/**
 * voice: the reply is spoken in the same turn, inside the TwiML answer to the provider's speech webhook
 * (VoiceCallsService), so there is nothing to send afterwards. The stored reply is the spoken text (what
 * the caller heard) and carries the sources it used as attachments: each source's own URL, or for a
 * source without one, its API URL (`/v1/knowledge_bases/{kb}/sources/{src}`).
 */
export function createVoiceReplyChannel(deps: { publicBaseUrl: string }): ReplyChannel {
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  return {
    channel: 'voice',
    repliesInTurn: true,
    shapeReply: async ({ text }) => toSpokenText(text),
    replyAttachments: (input: ReplyToShape) => {
      const urls = input.sources.map((s) =>
        s.url ?? (s.knowledgeBaseId && s.sourceId ? `${base}/v1/knowledge_bases/${s.knowledgeBaseId}/sources/${s.sourceId}` : undefined),
      );
      return [...new Set(urls.filter((u): u is string => u !== undefined))];
    },
    deliverReply: async () => undefined,
  };
}
