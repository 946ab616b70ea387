import type { Transaction } from 'kysely';
import type { MessageAuthor } from '../domain/roles';
import { parseRecipient } from '../domain/phone-addresses';
import type { DB } from '../db/schema';
import type { ConversationChannel } from '../db/tables/agents';
import { AppError } from '../domain/errors';

/** What callers hand ConversationsService: a new conversation, a posted message, a returning customer's match. */

export interface CreateConversationInput {
  accountId: string;
  livemode: boolean;
  agent_id: string;
  channel?: ConversationChannel;
  customer?: Record<string, string | undefined>;
  context?: Record<string, unknown>;
  tags?: string[];
  metadata?: Record<string, string>;
  /** A console test chat: runs use a snapshot of the agent's draft, and the conversation stays out of lists. */
  test?: boolean;
  /**
   * An evaluation's test conversation (with `test`): every run uses this agent version (a draft snapshot
   * or a published one) and the case's channel; its id is derived by the caller, so a repeat finds it.
   */
  evaluation?: { conversationId: string; agentVersion: number };
  /** The website visitor (vis_…) opening it through a publishable key. */
  visitorId?: string;
}

export interface PostMessageInput {
  accountId: string;
  livemode: boolean;
  conversationId: string;
  role: 'customer' | 'human';
  content: string;
  /** Who wrote a human message: the console's teammate (their display name), or the API key. */
  author?: MessageAuthor;
  attachments?: string[];
  trigger_run?: boolean;
  /** The evaluation runner posting a scripted turn: the only writer of an evaluation's test conversation. */
  byEvaluation?: boolean;
  /** The channel the message came in on (a channel adapter's inbound); defaults to the conversation's. */
  channel?: ConversationChannel;
  /**
   * The message's id, derived by a channel adapter from its inbound message (an SMS id), so a redelivered
   * inbound message posts once: a second post with the same id changes nothing and starts no second run.
   */
  messageId?: string;
  /**
   * The console test chat of this agent: the conversation must be one of its own test conversations
   * (anything else, a real customer's conversation included, is not found).
   */
  testChatOfAgent?: string;
  /**
   * A channel adapter's own record of the message (an inbound email's headers), written in the message's
   * transaction, so it exists before the run starts (the reply threads under it) and a failure stores
   * neither.
   */
  recordWithMessage?: (tx: Transaction<DB>, message: { conversationId: string; messageId: string }) => Promise<void>;
  /**
   * A customer message answering the widget's proactive message (its text as the agent's settings have it
   * now): that message is stored first, as the conversation's opening `system` turn (`kind: proactive`),
   * in the same transaction, when the conversation has no message yet (otherwise it is not stored).
   */
  answersProactive?: { content: string };
}

/** How a channel adapter recognises a returning customer: the same phone, email or customer id. */
export interface CustomerMatch {
  phone?: string;
  email?: string;
  id?: string;
}

/**
 * A `customer.phone` given through the API: E.164 (the schema's rule, 400) and valid in its country's
 * numbering plan (422, as for an SMS recipient). Channels that create conversations from what a carrier
 * reported are not held to it (a carrier's address is stored as received).
 */
export function assertCustomerPhone(phone: string | undefined): void {
  if (phone === undefined) return;
  const parsed = parseRecipient(phone);
  if (!parsed.ok) throw new AppError('parameter_unprocessable', `Invalid customer.phone: ${parsed.reason}`, { param: 'customer.phone' });
}
