import type { ConversationMessageObject } from './conversation.schemas';

/**
 * How a person's reply is signed outside the transcript (docs/decisions/inbox-signed-human-replies.md):
 * the name is the author's as the transcript shows it (a teammate's display name; "Support team" for a
 * console signed in with a key); an API key's reply (no name), an agent's and a notice are not signed.
 */
export function signerOf(message: Pick<ConversationMessageObject, 'role' | 'author'>): string | undefined {
  const name = message.role === 'human' ? message.author?.name?.trim() : undefined;
  return name ? name.replace(/[\r\n]+/g, ' ').slice(0, 80) : undefined;
}

/** An email's From display name for a person's reply: "Dana at Shop" (the address's own name), or "Dana". */
export function emailFromName(signer: string | undefined, addressName: string | null): string | null {
  if (!signer) return addressName;
  return addressName ? `${signer} at ${addressName}` : signer;
}

/** An SMS body signed by a person: the reply, a new line, "— Dana". */
export function signedSms(content: string, signer: string | undefined): string {
  return signer ? `${content}\n— ${signer}` : content;
}
