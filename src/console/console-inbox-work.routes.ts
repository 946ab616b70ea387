import type { Router } from 'express';
import { z } from 'zod';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { ConsoleSession } from './console-sessions.service';
import { writeSse } from '../http/sse';
import { scopeOf } from '../domain/principal';
import { AppError } from '../domain/errors';
import type { InboxService } from '../conversations/inbox.service';
import type { TeammatesService } from './teammates.service';
import type { InboxStreamService } from '../conversations/inbox-stream.service';
import type { ConversationNotesService } from '../conversations/conversation-notes.service';
import type { SavedRepliesService } from '../conversations/saved-replies.service';
import type { ConversationEventsNotifier } from '../conversations/conversation-events.notifier';
import { CreateSavedReplyBodySchema } from '../conversations/saved-reply.schemas';
import { customerLabel, inboxRow, rowInView, rowSortKey } from './views/inbox-list.view';
import { InboxFilterSchema, readerOf } from './console-inbox-filter';
import { savedRepliesPage } from './views/inbox-panel.view';

/** The name a teammate goes by in saved replies ({{agent.name}}) and notes: their display name (else email), or "Support team" for a key sign-in. */
async function nameOf(teammates: TeammatesService, session: ConsoleSession): Promise<string> {
  if (!session.userId) return 'Support team';
  return (await teammates.displayNames({ accountId: session.accountId })).get(session.userId) ?? 'Support team';
}

const AssignSchema = z.object({ user_id: z.string().max(255).default('') });
const NoteFormSchema = z.object({ body: z.string().trim().min(1, 'Write the note first').max(5000) });

interface ConsoleInboxWorkServices {
  agents: AgentsService;
  inbox: InboxService;
  inboxStream: InboxStreamService;
  conversationNotes: ConversationNotesService;
  savedReplies: SavedRepliesService;
  conversationEvents: ConversationEventsNotifier;
  teammates: TeammatesService;
}

/**
 * Working the inbox: its live stream (GET /console/inbox/events), claim and assign, internal notes, saved
 * replies (inserted with their variables filled in, and managed). Registered before the inbox's own routes
 * (its `/inbox/:id` would take `/inbox/events`). Every change is a POST under /console/inbox/.
 */
export function registerConsoleInboxWorkRoutes(router: Router, { services }: ConsoleDeps<ConsoleInboxWorkServices>) {
  // The inbox as server-sent events: each changed conversation as the list's row (`in_view`: whether it
  // belongs in the tab shown), `alert` when it needs the team now, then the tab counts.
  router.get('/inbox/events', page(async (req, res) => {
    const { session } = sessionOf(res);
    const f = InboxFilterSchema.parse(req.query);
    const sinceRaw = typeof req.query.since === 'string' ? new Date(req.query.since) : new Date();
    // A page rendered long ago (or a bad date) catches up over the last minute at most.
    const since = Number.isNaN(sinceRaw.getTime()) || Date.now() - sinceRaw.getTime() > 60_000 ? new Date(Date.now() - 60_000) : sinceRaw;
    const agents = new Map((await services.agents.listAgents({ ...scopeOf(session), page: { limit: 100 } })).data.map((a) => [a.id, a.name]));
    const who = readerOf(session);
    // Names as the stream opens; a teammate who joins later shows as their email until the page reloads.
    const teammateNames = await services.teammates.displayNames({ accountId: session.accountId });
    await writeSse(req, res, async function* (signal) {
      for await (const e of services.inboxStream.streamInbox({ ...scopeOf(session), who, since, signal })) {
        if (e.event === 'inbox.counts') {
          yield { event: 'inbox.counts', data: e.counts };
          continue;
        }
        const { row } = e;
        yield {
          event: 'inbox.conversation',
          data: {
            id: row.id, status: row.status, in_view: rowInView(row, f, session.userId), sort: rowSortKey(row, f.tab),
            last_message_at: (row.last_message_at ?? row.updated_at).toISOString(), html: inboxRow(row, f, agents, teammateNames).value,
            alert: e.alert, title: `${customerLabel(row)} needs the team`, body: row.last_message_preview ?? '',
          },
        };
      }
    });
  }));

  router.post('/inbox/:id/claim', page(async (req, res) => {
    const { session } = sessionOf(res);
    if (!session.userId) throw new AppError('parameter_unprocessable', 'Sign in as yourself (email and password) to claim a conversation: a key sign-in is shared', { param: 'user_id' });
    await services.inbox.assign({ ...scopeOf(session), conversationId: idOf(req), userId: session.userId });
    await services.conversationEvents.publishChanged(idOf(req));
    res.redirect(303, `/console/inbox/${idOf(req)}?done=claimed`);
  }));

  router.post('/inbox/:id/assign', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = AssignSchema.parse(req.body);
    await services.inbox.assign({ ...scopeOf(session), conversationId: idOf(req), userId: body.user_id === '' ? null : body.user_id });
    await services.conversationEvents.publishChanged(idOf(req));
    res.redirect(303, `/console/inbox/${idOf(req)}?done=assigned`);
  }));

  router.post('/inbox/:id/notes', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = NoteFormSchema.parse(req.body);
    const name = await nameOf(services.teammates, session);
    const author = session.userId ? { userId: session.userId, name } : { keyId: null, name: 'Console (key sign-in)' };
    await services.conversationNotes.addNote({ ...scopeOf(session), conversationId: idOf(req), body: body.body, author });
    res.redirect(303, `/console/inbox/${idOf(req)}?done=note`);
  }));

  // A saved reply's text for this conversation (the picker inserts it into the reply; nothing is sent).
  router.get('/inbox/:id/saved-replies/:replyId', page(async (req, res) => {
    const { session } = sessionOf(res);
    const content = await services.savedReplies.renderForConversation({ ...scopeOf(session), conversationId: idOf(req), savedReplyId: idOf(req, 'replyId'), agentName: await nameOf(services.teammates, session) });
    res.json({ content });
  }));

  router.get('/inbox/saved-replies', page(async (_req, res) => {
    const { session } = sessionOf(res);
    const replies = await services.savedReplies.listSavedReplies(scopeOf(session));
    sendPage(res, { title: 'Saved replies', active: 'inbox', body: savedRepliesPage({ replies: replies.data, csrf: session.csrfToken }) });
  }));

  router.post('/inbox/saved-replies', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = { name: String((req.body as Record<string, unknown>).name ?? ''), content: String((req.body as Record<string, unknown>).content ?? '') };
    const parsed = CreateSavedReplyBodySchema.safeParse(form);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const replies = await services.savedReplies.listSavedReplies(scopeOf(session));
      sendPage(res, { title: 'Saved replies', active: 'inbox', status: 422, body: savedRepliesPage({ replies: replies.data, csrf: session.csrfToken, form, error: `${issue.path.join('.')}: ${issue.message}` }) });
      return;
    }
    await services.savedReplies.createSavedReply({ ...scopeOf(session), ...parsed.data });
    res.redirect(303, '/console/inbox/saved-replies');
  }));

  router.post('/inbox/saved-replies/:id/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.savedReplies.deleteSavedReply({ ...scopeOf(session), savedReplyId: idOf(req) });
    res.redirect(303, '/console/inbox/saved-replies');
  }));
}
