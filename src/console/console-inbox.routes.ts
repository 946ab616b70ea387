import type { Router } from 'express';
import { z } from 'zod';
import type { RunObject } from '../runs/run.schemas';
import { actorOf, idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { ConversationsService } from '../conversations/conversations.service';
import type { RunsService } from '../runs/runs.service';
import type { EmailsService } from '../channels/email/emails.service';
import type { MessagesService } from '../sms/messages.service';
import { conversationPage, inboxPage, type ReplyDelivery } from './views/inbox.view';
import { AppError } from '../domain/errors';
import { smsOfConversationMessage } from '../channels/sms/sms-reply.channel';
import { emptyQueueForm, queuesPage, queueToForm, type QueueForm } from './views/queues.view';
import type { QueuesService } from '../conversations/queues.service';
import { WEEKDAYS } from '../conversations/business-hours';
import type { Response } from 'express';
import type { ConversationStreamService } from '../conversations/conversation-stream.service';
import { scopeOf } from '../domain/principal';
import { CONVERSATION_CHANNELS } from '../domain/channels';
import { CreateQueueBodySchema, UpdateQueueBodySchema } from '../conversations/queue.schemas';

const FilterSchema = z.object({
  status: z.enum(['active', 'handed_off', 'closed']).optional().catch(undefined),
  channel: z.enum(CONVERSATION_CHANNELS).optional().catch(undefined),
  agent_id: z.string().startsWith('agt_').optional().catch(undefined),
  tag: z.string().min(1).max(100).optional().catch(undefined),
  starting_after: z.string().optional().catch(undefined),
  /** 1: the console's test chats (and evaluations' test conversations) instead of customers' conversations. */
  test: z.enum(['1']).optional().catch(undefined),
});
const ReplySchema = z.object({ content: z.string().trim().min(1, 'Write a reply first').max(4000) });
const NoteSchema = z.object({ note: z.string().trim().max(2000).default('') });

/** The services these console pages use. */
interface ConsoleInboxServices { agents: AgentsService; conversations: ConversationsService; emails: EmailsService; messages: MessagesService; runs: RunsService; queues: QueuesService; conversationStream: ConversationStreamService }

/** The queue form as posted (strings as typed). */
function readQueueForm(body: Record<string, unknown>, id?: string): QueueForm {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    id,
    name: str(body.name).trim(),
    time_zone: str(body.time_zone).trim(),
    always_open: str(body.always_open) === '1',
    days: Object.fromEntries(WEEKDAYS.map((d) => [d, str(body[`day_${d}`])])),
    holidays: str(body.holidays),
  };
}

/** The form as the queues API takes it: intervals split on commas, holidays one per line. */
function queueInputOf(form: QueueForm) {
  const list = (text: string, sep: RegExp) => text.split(sep).map((s) => s.trim()).filter(Boolean);
  return {
    name: form.name,
    time_zone: form.time_zone,
    weekly_hours: form.always_open ? null : Object.fromEntries(WEEKDAYS.map((d) => [d, list(form.days[d] ?? '', /,/).map((i) => i.replace(/\s+/g, ''))])),
    holidays: list(form.holidays, /\r?\n/),
  };
}

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
      status: f.status, channel: f.channel, agent_id: f.agent_id, tag: f.tag, test: f.test === '1', queueWithApprovals: true,
    });
    const awaitingApproval = await services.runs.conversationsAwaitingApproval({ ...scopeOf(session), conversationIds: list.data.map((c) => c.id) });
    sendPage(res, {
      title: 'Inbox',
      active: 'inbox',
      body: inboxPage({ f, agents, list, awaitingApproval }),
    });
  }));

  // Queues and their business hours (the API's /v1/queues as a form).
  async function renderQueues(res: Response, form?: QueueForm, error?: string) {
    const { session } = sessionOf(res);
    const queues = (await services.queues.listQueues(scopeOf(session))).data;
    const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    sendPage(res, { title: 'Queues', active: 'inbox', status: error ? 422 : undefined, body: queuesPage({ queues, form: form ?? emptyQueueForm(), csrf: session.csrfToken, error, zones }) });
  }

  router.get('/queues', page(async (req, res) => {
    const { session } = sessionOf(res);
    const edit = typeof req.query.edit === 'string' ? await services.queues.getQueue({ ...scopeOf(session), queueId: req.query.edit }) : undefined;
    await renderQueues(res, edit && queueToForm(edit));
  }));

  /** Saves the queue the form describes; a bad value shows the form again, as typed, with the API's message. */
  async function saveQueue(res: Response, form: QueueForm, save: (input: ReturnType<typeof queueInputOf>) => Promise<unknown>) {
    const input = queueInputOf(form);
    const parsed = (form.id ? UpdateQueueBodySchema : CreateQueueBodySchema).safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return renderQueues(res, form, `${issue.path.join('.') || 'queue'}: ${issue.message}`);
    }
    try {
      await save(input);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return renderQueues(res, form, err.message);
    }
    res.redirect(303, '/console/queues');
  }

  router.post('/queues', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = readQueueForm(req.body as Record<string, unknown>);
    await saveQueue(res, form, (input) => services.queues.createQueue({ ...scopeOf(session), ...input }));
  }));

  router.post('/queues/:id', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = readQueueForm(req.body as Record<string, unknown>, idOf(req));
    await saveQueue(res, form, (input) => services.queues.updateQueue({ ...scopeOf(session), queueId: idOf(req), ...input }));
  }));

  router.post('/queues/:id/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.queues.deleteQueue({ ...scopeOf(session), queueId: idOf(req) });
    res.redirect(303, '/console/queues');
  }));

  router.get('/inbox/:id', page(async (req, res) => {
    const { session } = sessionOf(res);
    const accountId = session.accountId;
    const livemode = session.mode === 'live';
    const c = await services.conversations.getConversation({ accountId, livemode, conversationId: idOf(req) });
    // Opened by a teammate: read (it shows as unread below only this once).
    if (c.unread) await services.conversations.markRead({ accountId, livemode, conversationId: c.id });
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
    const notice = req.query.done === 'reply' ? 'Reply sent.' : req.query.done === 'handoff' ? 'Handoff closed: the agent answers again.' : req.query.done === 'closed' ? 'Conversation closed.' : undefined;
    sendPage(res, {
      title: `Conversation with ${who}`,
      active: 'inbox',
      notice,
      body: conversationPage({ c, agent, messages, runs, deliveries, who, csrf: session.csrfToken, ui }),
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
