import type { Router } from 'express';
import { handoffNoticeMessageId } from '../runs/run-outcome';
import { z } from 'zod';
import { AgentConfigSchema, type AgentConfig } from '../agents/agent.schemas';
import { lastEventId, writeSse } from '../http/sse';
import { configToForm, emptyForm, fieldErrorOf, formToConfig, readAgentForm, type AgentForm, type FieldErrors } from './agent-form';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { AnalyticsService } from '../analytics/analytics.service';
import type { ConversationsService } from '../conversations/conversations.service';
import type { KnowledgeBasesService } from '../knowledge/knowledge-bases.service';
import type { RunsService } from '../runs/runs.service';
import { agentEditor, agentPage, agentsList, diffConfigs, newAgentPage, testChatRunPanel, versionsPage } from './views/agents.view';
import { scopeOf, type Scope } from '../domain/principal';

const TestChatBodySchema = z.strictObject({ content: z.string().trim().min(1).max(4000), conversation_id: z.string().startsWith('cnv_').optional(), _csrf: z.string().optional() });

const canonical = (v: unknown) => JSON.stringify(AgentConfigSchema.parse(v), (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x));

/** The services these console pages use. */
interface ConsoleAgentServices { analytics: AnalyticsService; agents: AgentsService; conversations: ConversationsService; knowledgeBases: KnowledgeBasesService; runs: RunsService }

/** Agents: list, create and edit the draft, publish, versions and their differences, the test chat. */
export function registerConsoleAgentRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleAgentServices>) {
  const ui = { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace };

  const bases = async (scope: Scope) => (await services.knowledgeBases.listBases({ ...scope, page: { limit: 100 } })).data.map((b) => ({ id: b.id, name: b.name }));

  async function renderAgent(
    res: Parameters<typeof sendPage>[0],
    agentId: string,
    opts: { form?: AgentForm; errors?: FieldErrors; notice?: string; published?: boolean; status?: number } = {},
  ) {
    const { session } = sessionOf(res);
    const { agent, draft, liveVersion } = await services.agents.getDraft({ ...scopeOf(session), agentId });
    const live = liveVersion ? (await services.agents.getVersion({ agentId, version: liveVersion })).config : undefined;
    const editor = agentEditor({
      action: `/console/agents/${agent.id}`,
      form: opts.form ?? configToForm(draft),
      errors: opts.errors ?? {},
      bases: await bases(scopeOf(session)),
      csrf: session.csrfToken,
      submitLabel: 'Save draft',
    });
    sendPage(res, {
      title: agent.name,
      active: 'agents',
      // The published version named from the agent itself, never from the query.
      notice: opts.published && liveVersion ? `Published: version ${liveVersion} is live.` : opts.notice,
      status: opts.status,
      body: agentPage({ agent, liveVersion, draftChanged: !live || canonical(live) !== canonical(draft), editor, csrf: session.csrfToken }),
    });
  }

  router.get('/agents', page(async (_req, res) => {
    const { session } = sessionOf(res);
    const agents = await services.agents.listAgents({ ...scopeOf(session), page: { limit: 100 } });
    const week = await services.analytics.lastSevenDays({ ...scopeOf(session), agentIds: agents.data.map((a) => a.id) });
    sendPage(res, { title: 'Agents', active: 'agents', body: agentsList(agents.data, week.byAgent) });
  }));

  router.get('/agents/new', page(async (_req, res) => {
    const { session } = sessionOf(res);
    const editor = agentEditor({ action: '/console/agents', form: emptyForm(), errors: {}, bases: await bases(scopeOf(session)), csrf: session.csrfToken, submitLabel: 'Create draft' });
    sendPage(res, { title: 'New agent', active: 'agents', body: newAgentPage(editor) });
  }));

  router.post('/agents', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = readAgentForm(req.body as Record<string, unknown>);
    let { config: candidate, errors } = formToConfig(form);
    if (candidate) {
      try {
        const agent = await services.agents.createAgent({ ...scopeOf(session), config: candidate });
        return res.redirect(303, `/console/agents/${agent.id}?saved=1`);
      } catch (err) {
        errors = fieldErrorOf(err, form);
      }
    }
    const editor = agentEditor({ action: '/console/agents', form, errors, bases: await bases(scopeOf(session)), csrf: session.csrfToken, submitLabel: 'Create draft' });
    return sendPage(res, { title: 'New agent', active: 'agents', status: 422, body: newAgentPage(editor) });
  }));

  router.get('/agents/:id', page(async (req, res) => {
    const notice = req.query.saved ? 'Draft saved.' : req.query.unchanged ? 'Nothing to publish: the draft is the live version.' : undefined;
    await renderAgent(res, idOf(req), { notice, published: req.query.published !== undefined });
  }));

  router.post('/agents/:id', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = readAgentForm(req.body as Record<string, unknown>);
    let { config: candidate, errors } = formToConfig(form);
    if (candidate) {
      try {
        await services.agents.updateDraft({ ...scopeOf(session), agentId: idOf(req), config: candidate });
        return res.redirect(303, `/console/agents/${req.params.id}?saved=1`);
      } catch (err) {
        errors = fieldErrorOf(err, form);
      }
    }
    return renderAgent(res, idOf(req), { form, errors, status: 422 });
  }));

  router.post('/agents/:id/publish', page(async (req, res) => {
    const { session } = sessionOf(res);
    const { agent, published } = await services.agents.publish({ ...scopeOf(session), agentId: idOf(req) });
    res.redirect(303, `/console/agents/${agent.id}?${published ? `published=${agent.version}` : 'unchanged=1'}`);
  }));

  router.get('/agents/:id/versions', page(async (req, res) => {
    const { session } = sessionOf(res);
    const { agent, draft } = await services.agents.getDraft({ ...scopeOf(session), agentId: idOf(req) });
    const versions = await services.agents.listVersions({ ...scopeOf(session), agentId: agent.id });
    const pick = (v: unknown): AgentConfig | undefined => (v === 'draft' ? draft : versions.find((x) => String(x.version) === v)?.config);
    const a = typeof req.query.a === 'string' ? req.query.a : versions[1] ? String(versions[1].version) : versions[0] ? String(versions[0].version) : undefined;
    const b = typeof req.query.b === 'string' ? req.query.b : versions[1] ? String(versions[0]!.version) : 'draft';
    const ca = pick(a);
    const cb = pick(b);
    sendPage(res, {
      title: `${agent.name}: versions`,
      active: 'agents',
      body: versionsPage({ agent, versions, a, b, diff: ca && cb ? diffConfigs(ca, cb) : undefined }),
    });
  }));

  // The test chat: a test conversation runs a snapshot of the saved draft (AgentsService.snapshotDraft).
  router.post('/agents/:id/test-chat', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = TestChatBodySchema.parse(req.body);
    const conversationId =
      body.conversation_id ??
      (await services.conversations.createConversation({ ...scopeOf(session), agent_id: idOf(req), test: true, metadata: { console_test: 'true' } })).id;
    // Only into this agent's own test conversations: never a real customer's (an SMS would go out).
    const message = await services.conversations.postMessage({ ...scopeOf(session), conversationId, testChatOfAgent: idOf(req), role: 'customer', content: body.content, waitMs: 0 });
    // No run: a person holds the conversation (handed off); the message waits for them in the inbox's test view.
    res.json({ conversation_id: conversationId, message_id: message.id, run_id: message.run?.id ?? null, inbox_url: message.run ? null : `/console/inbox/${conversationId}` });
  }));

  // A run's server-sent events (run.started, tool.called, reply.delta, run.completed), as the API streams them.
  router.get('/runs/:id/events', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.runs.getRun({ ...scopeOf(session), runId: idOf(req) });
    await writeSse(req, res, (signal) => services.runs.streamEvents({ ...scopeOf(session), runId: idOf(req), afterSeq: lastEventId(req), signal }));
  }));

  // What a finished run did, as a fragment the test chat places under the reply.
  router.get('/runs/:id/panel', page(async (req, res) => {
    const { session } = sessionOf(res);
    const run = await services.runs.getRun({ ...scopeOf(session), runId: idOf(req) });
    // A handoff: the notice the customer would have got, and how to go on (continue as the customer, or a new chat).
    const notice = run.handoff ? await services.conversations.findMessage({ ...scopeOf(session), messageId: handoffNoticeMessageId(run.id) }) : undefined;
    res.type('html').send(testChatRunPanel(run, ui, notice && { content: notice.content, conversationId: notice.conversation_id }).value);
  }));
}
