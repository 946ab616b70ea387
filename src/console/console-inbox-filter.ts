import { z } from 'zod';
import { CONVERSATION_CHANNELS } from '../domain/channels';
import { INBOX_TABS, type InboxReader } from '../conversations/inbox.service';
import type { ConsoleSession } from './console-sessions.service';
import type { InboxFilter } from './views/inbox-list.view';

/** The inbox's view from the query; `status=` (the old tabs' links) still opens the matching tab. */
export const InboxFilterSchema = z
  .object({
    tab: z.enum(INBOX_TABS).optional().catch(undefined),
    status: z.enum(['active', 'handed_off', 'closed']).optional().catch(undefined),
    channel: z.enum(CONVERSATION_CHANNELS).optional().catch(undefined),
    agent_id: z.string().startsWith('agt_').max(255).optional().catch(undefined),
    tag: z.string().min(1).max(100).optional().catch(undefined),
    q: z.string().trim().min(1).max(200).optional().catch(undefined),
    starting_after: z.string().max(255).optional().catch(undefined),
    /** 1: the console's test chats (and evaluations' test conversations) instead of customers' conversations. */
    test: z.enum(['1']).optional().catch(undefined),
  })
  .transform(({ status, tab, ...f }): InboxFilter & { starting_after?: string } => ({ ...f, tab: tab ?? (status === 'handed_off' ? 'queue' : status ?? 'all') }));

/** Who reads in this session: the console user, or `key` for every key sign-in of the account (one shared reader). */
export const readerOf = (session: ConsoleSession): InboxReader => ({ reader: session.userId ?? 'key', userId: session.userId });

