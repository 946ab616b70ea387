import type { VisitorPrincipal } from './principal';

/** What the visitor rule reads of a conversation (a conversations row has all of it). */
export interface VisitorReadableConversation {
  account_id: string;
  livemode: boolean;
  agent_id: string | null;
  test: boolean;
  visitor_id: string | null;
  customer: Record<string, unknown>;
}

/**
 * Whether a website visitor may read (and post to, and stream) a conversation: one of the key's account,
 * mode and agent, not a console test chat, and the visitor's own: a conversation linked to a customer
 * (`customer.id`) belongs to whoever carries a verified JWT for that customer; an anonymous one to the
 * visitor token that opened it. Anything else is answered as not found (another visitor's id says nothing).
 */
export function canVisitorRead(visitor: VisitorPrincipal, conversation: VisitorReadableConversation): boolean {
  if (conversation.account_id !== visitor.accountId || conversation.livemode !== (visitor.mode === 'live')) return false;
  if (conversation.agent_id !== visitor.agentId || conversation.test) return false;
  const customerId = typeof conversation.customer.id === 'string' ? conversation.customer.id : undefined;
  if (customerId !== undefined) return visitor.customer?.id === customerId;
  return conversation.visitor_id !== null && conversation.visitor_id === visitor.visitorId;
}
