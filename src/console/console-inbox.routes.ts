import type { Router } from 'express';
import { z } from 'zod';
import type { RunObject } from '../runs/run.schemas';
import { actorOf, idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { ConversationsService } from '../conversations/conversations.service';
import type { RunsService } from '../runs/runs.service';
import type { EmailsService } from '../channels/email/emails.service';
import type { MessagesService } from '../sms/messages.service';
import { conversationPage, type ReplyDelivery } from './views/inbox.view';
import { AppError } from '../domain/errors';
import { smsOfConversationMessage } from '../channels/sms/sms-reply.channel';
import type { ConversationStreamService } from '../conversations/conversation-stream.service';
import { scopeOf } from '../domain/principal';
import type { InboxService } from '../conversations/inbox.service';
import type { TeammatesService } from './teammates.service';
import type { ConversationNotesService } from '../conversations/conversation-notes.service';
import type { SavedRepliesService } from '../conversations/saved-replies.service';
import { inboxPage } from './views/inbox-list.view';
import { conversationAside, savedReplyPicker } from './views/inbox-panel.view';
import { InboxFilterSchema, readerOf } from './console-inbox-filter';

const ReplySchema = z.object({ content: z.string().trim().min(1, 'Write a reply first').max(4000) });
const NoteSchema = z.object({ note: z.string().trim().max(2000).default('') });

/** The services these console pages use. */
interface ConsoleInboxServices {
  agents: AgentsService; conversations: ConversationsService; emails: EmailsService; messages: MessagesService; runs: RunsService; conversationStream: ConversationStreamService;
  inbox: InboxService; conversationNotes: ConversationNotesService; savedReplies: SavedRepliesService; teammates: TeammatesService;
}

/** The inbox: conversations by status, channel, agent and tag; the handoff queue; transcripts; human replies. */
export function registerConsoleInboxRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleInboxServices>) {
  const ui = { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace };

  router.get('/inbox', page(async (req, res) => {
    const { session } = sessionOf(res);
    const f = InboxFilterSchema.parse(req.query);
    const since = new Date().toISOString();
    const who = readerOf(session);
    const [agents, list, counts, teammateNames] = await Promise.all([
      services.agents.listAgents({ ...scopeOf(session), page: { limit: 100 } }),
      services.inbox.listInbox({ ...scopeOf(session), who, tab: f.tab, test: f.test === '1', channel: f.channel, agent_id: f.agent_id, tag: f.tag, search: f.q, startingAfter: f.starting_after }),
      services.inbox.counts({ ...scopeOf(session), who }),
      services.teammates.displayNames({ accountId: session.accountId }),
    ]);
    sendPage(res, { title: 'Inbox', active: 'inbox', body: inboxPage({ f, agents: agents.data, list, counts, since, teammateNames }) });
  }));

  router.get('/inbox/:id', page(async (req, res) => {
    const { session } = sessionOf(res);
    const accountId = session.accountId;
    const livemode = session.mode === 'live';
    const c = await services.conversations.getConversation({ accountId, livemode, conversationId: idOf(req) });
    // Opened by a teammate: read for them (and the conversation's own unread marker clears).
    await services.inbox.markRead({ accountId, livemode, conversationId: c.id, reader: readerOf(session).reader });
    const messages = [];
    let startingAfter: string | undefined;
    for (let i = 0; i < 10; i++) {
      const p = await services.conversations.listMessages({ accountId, livemode, conversationId: c.id, page: { limit: 100, starting_after: startingAfter } });
      messages.push(...p.data);
      if (!p.has_more || p.data.length === 0) break;
      startingAfter = p.data.at(-1)!.id;
    }
    const runs = new Map<string, RunObject>();
    for (const m of messages) if (m.role === 'customer' && m.run_id) runs.set(m.run_id, await services.runs.getRun({ accountId, livemode, runId: m.run_id }));
    // No agent: a number with none attached; the team answers.
    const agent = c.agent_id === null ? null : await services.agents.getAgent({ accountId, livemode, agentId: c.agent_id });
    // How each reply sent by email or SMS fared (one that never reached a relay or carrier is marked).
    const deliveries = new Map<string, ReplyDelivery>();
    for (const [messageId, e] of await services.emails.emailsOfConversation({ accountId, livemode, conversationId: c.id })) {
      deliveries.set(messageId, { channel: 'email', status: e.status, code: e.error?.code ?? null, message: e.error?.message ?? null, sandbox: e.sandbox, to: e.to });
    }
    for (const m of messages) {
      if (m.channel !== 'sms' || m.role === 'customer') continue;
      const sms = await services.messages.getMessage({ accountId, livemode, messageId: smsOfConversationMessage(m.id) }).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'resource_missing') return undefined;
        throw err;
      });
      if (sms) deliveries.set(m.id, { channel: 'sms', status: sms.status, code: sms.error_code, message: sms.error_message, sandbox: !sms.livemode, to: sms.to });
    }
    const who = String(c.customer.name ?? c.customer.email ?? c.customer.phone ?? 'Customer');
    const [teammates, notes, past, replies, assignee, teammateNames] = await Promise.all([
      services.inbox.teammates({ accountId }),
      services.conversationNotes.listNotes({ accountId, livemode, conversationId: c.id }),
      services.inbox.customerConversations({ accountId, livemode, customer: c.customer, exceptId: c.id }),
      services.savedReplies.listSavedReplies({ accountId, livemode }),
      services.inbox.assigneeOf({ accountId, livemode, conversationId: c.id }),
      services.teammates.displayNames({ accountId }),
    ]);
    const aside = conversationAside({ c: { ...c, assignee_user_id: assignee }, teammates, teammateNames, me: session.userId, notes, past, csrf: session.csrfToken });
    const done: Record<string, string> = { reply: 'Reply sent.', handoff: 'Handoff closed: the agent answers again.', closed: 'Conversation closed.', claimed: 'Assigned to you.', assigned: 'Assignee saved.', note: 'Note added (the customer does not see it).' };
    const notice = typeof req.query.done === 'string' ? done[req.query.done] : undefined;
    sendPage(res, {
      title: `Conversation with ${who}`,
      active: 'inbox',
      notice,
      body: conversationPage({ c, agent, messages, runs, deliveries, who, csrf: session.csrfToken, ui, aside, picker: savedReplyPicker(c.id, replies.data) }),
    });
  }));

  router.post('/inbox/:id/reply', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = ReplySchema.parse(req.body);
    await services.conversations.postMessage({ ...scopeOf(session), conversationId: idOf(req), role: 'human', content: body.content, author: actorOf(res) });
    res.redirect(303, `/console/inbox/${idOf(req)}?done=reply`);
  }));

  // A person is typing a reply (the page sends it every few seconds while they type): the conversation's
  // streams show it (GET /v1/conversations/{id}/events, event typing); nothing is stored.
  router.post('/inbox/:id/typing', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.conversationStream.signalTyping({ ...scopeOf(session), conversationId: idOf(req) });
    res.status(204).end();
  }));

  router.post('/inbox/:id/handoff/close', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = NoteSchema.parse(req.body);
    await services.conversations.closeHandoff({ ...scopeOf(session), conversationId: idOf(req), note: body.note });
    res.redirect(303, `/console/inbox/${idOf(req)}?done=handoff`);
  }));

  router.post('/inbox/:id/close', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.conversations.closeConversation({ ...scopeOf(session), conversationId: idOf(req) });
    res.redirect(303, `/console/inbox/${idOf(req)}?done=closed`);
  }));
}
