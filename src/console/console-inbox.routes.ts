import type { Router } from 'express';
import { z } from 'zod';
import type { RunObject } from '../runs/run.schemas';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { ConversationsService } from '../conversations/conversations.service';
import type { RunsService } from '../runs/runs.service';
import type { ConversationStreamService } from '../conversations/conversation-stream.service';
import { conversationPage, inboxPage } from './views/inbox.view';
import { scopeOf } from '../domain/principal';
import { CONVERSATION_CHANNELS } from '../domain/channels';

const FilterSchema = z.object({
  status: z.enum(['active', 'handed_off', 'closed']).optional().catch(undefined),
  channel: z.enum(CONVERSATION_CHANNELS).optional().catch(undefined),
  agent_id: z.string().startsWith('agt_').optional().catch(undefined),
  tag: z.string().min(1).max(100).optional().catch(undefined),
  starting_after: z.string().optional().catch(undefined),
});
const ReplySchema = z.object({ content: z.string().trim().min(1, 'Write a reply first').max(4000) });
const NoteSchema = z.object({ note: z.string().trim().max(2000).default('') });

/** The services these console pages use. */
interface ConsoleInboxServices { agents: AgentsService; conversations: ConversationsService; runs: RunsService; conversationStream: ConversationStreamService }

/** The inbox: conversations by status, channel, agent and tag; the handoff queue; transcripts; human replies. */
export function registerConsoleInboxRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleInboxServices>) {
  const ui = { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace };

  router.get('/inbox', page(async (req, res) => {
    const { session } = sessionOf(res);
    const f = FilterSchema.parse(req.query);
    const agents = (await services.agents.listAgents({ ...scopeOf(session), page: { limit: 100 } })).data;
    const list = await services.conversations.listConversations({
      ...scopeOf(session),
      page: { limit: 50, starting_after: f.starting_after },
      status: f.status, channel: f.channel, agent_id: f.agent_id, tag: f.tag,
    });
    sendPage(res, {
      title: 'Inbox',
      active: 'inbox',
      body: inboxPage({ f, agents, list }),
    });
  }));

  router.get('/inbox/:id', page(async (req, res) => {
    const { session } = sessionOf(res);
    const accountId = session.accountId;
    const livemode = session.mode === 'live';
    const c = await services.conversations.getConversation({ accountId, livemode, conversationId: idOf(req) });
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
    const agent = await services.agents.getAgent({ accountId, livemode, agentId: c.agent_id });
    const who = String(c.customer.name ?? c.customer.email ?? c.customer.phone ?? 'Customer');
    const notice = req.query.done === 'reply' ? 'Reply sent.' : req.query.done === 'handoff' ? 'Handoff closed: the agent answers again.' : req.query.done === 'closed' ? 'Conversation closed.' : undefined;
    sendPage(res, {
      title: `Conversation with ${who}`,
      active: 'inbox',
      notice,
      body: conversationPage({ c, agent, messages, runs, who, csrf: session.csrfToken, ui }),
    });
  }));

  router.post('/inbox/:id/reply', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = ReplySchema.parse(req.body);
    await services.conversations.postMessage({ ...scopeOf(session), conversationId: idOf(req), role: 'human', content: body.content });
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
