import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { AgentsService } from '../agents/agents.service';
import type { ConversationsService } from '../conversations/conversations.service';
import { AppError, notFound } from '../domain/errors';
import { scopeOf, type Scope } from '../domain/principal';
import type { KnowledgeBasesService } from '../knowledge/knowledge-bases.service';
import type { KnowledgeGapsService } from '../knowledge/knowledge-gaps.service';
import type { KnowledgeRecordsService } from '../knowledge/knowledge-records.service';
import type { KnowledgeSourcesService } from '../knowledge/knowledge-sources.service';
import { idOf, page, principalOf, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { gapAnswerPage, gapCheckPage, gapsPage, GAP_PERIODS, type AnswerFormValues } from './views/gaps.view';

/** The services these console pages use. */
interface ConsoleGapServices {
  agents: AgentsService;
  knowledgeGaps: KnowledgeGapsService;
  knowledgeBases: KnowledgeBasesService;
  knowledgeSources: KnowledgeSourcesService;
  knowledgeRecords: KnowledgeRecordsService;
  conversations: ConversationsService;
}

const DAY_MS = 86_400_000;
/** How long one re-asked question may take to be answered (the run, through the worker). */
const REASK_WAIT_MS = 30_000;
/** How long a new record source may take to be indexed before its questions are re-asked. */
const NEW_SOURCE_WAIT_MS = 30_000;
/** The record source "Write an answer" creates when the agent's knowledge has none. */
const ANSWERS_SOURCE_TITLE = 'Answers written from knowledge gaps';

const AnswerFormSchema = z.object({ title: z.string().trim().min(1).max(500), content: z.string().trim().min(1).max(20_000) });

const daysOf = (req: Request) => {
  const d = Number(req.query.days);
  return (GAP_PERIODS as readonly number[]).includes(d) ? d : GAP_PERIODS[0];
};

/**
 * The agent's Knowledge gaps page (the report of src/knowledge/knowledge-gaps.service.ts) and "Write an
 * answer": a new record in the agent's record source (one is created when its knowledge has none),
 * pre-filled with the gap's question and a teammate's reply; once saved, the gap's example questions are
 * asked again through the agent (console test chats: runs of the draft, left out of analytics) and the
 * page shows how many it now answers.
 */
export function registerConsoleGapRoutes(router: Router, { services }: ConsoleDeps<ConsoleGapServices>) {
  async function gapOf(res: Response, agentId: string, gapId: string, days: number) {
    const scope = scopeOf(sessionOf(res).session);
    const agent = await services.agents.getAgent({ ...scope, agentId });
    const to = new Date();
    const report = await services.knowledgeGaps.getKnowledgeGaps({ ...scope, agentId, from: new Date(to.getTime() - days * DAY_MS), to, limit: 100 });
    const gap = report.data.find((g) => g.id === gapId);
    if (!gap) throw notFound('knowledge gap', gapId);
    return { scope, agent, gap };
  }

  /** Where the answer goes: the first record source of the agent's knowledge bases, else its first base. */
  async function answerTarget(scope: Scope, baseIds: string[]) {
    if (baseIds.length === 0) throw new AppError('resource_conflict', 'This agent has no knowledge base: attach one in its settings first', { param: 'knowledge_bases' });
    for (const knowledgeBaseId of baseIds) {
      const sources = await services.knowledgeSources.listSources({ ...scope, knowledgeBaseId, page: { limit: 100 } });
      const records = sources.data.find((s) => s.type === 'record');
      if (records) return { knowledgeBaseId, sourceId: records.id as string | null, baseName: (await services.knowledgeBases.getBase({ ...scope, knowledgeBaseId })).name };
    }
    const knowledgeBaseId = baseIds[0]!;
    return { knowledgeBaseId, sourceId: null as string | null, baseName: (await services.knowledgeBases.getBase({ ...scope, knowledgeBaseId })).name };
  }

  router.get('/agents/:id/gaps', page(async (req, res) => {
    const scope = scopeOf(sessionOf(res).session);
    const agent = await services.agents.getAgent({ ...scope, agentId: idOf(req) });
    const days = daysOf(req);
    const to = new Date();
    const report = await services.knowledgeGaps.getKnowledgeGaps({ ...scope, agentId: agent.id, from: new Date(to.getTime() - days * DAY_MS), to, limit: 50 });
    sendPage(res, { title: `${agent.name}: knowledge gaps`, active: 'agents', body: gapsPage({ agent, report, days }) });
  }));

  router.get('/agents/:id/gaps/:gap/answer', page(async (req, res) => {
    const days = daysOf(req);
    const { scope, agent, gap } = await gapOf(res, idOf(req), idOf(req, 'gap'), days);
    const target = await answerTarget(scope, agent.knowledge_sources);
    const values: AnswerFormValues = { title: gap.examples[0]?.text ?? '', content: gap.human_reply?.text ?? '' };
    sendPage(res, { title: 'Write an answer', active: 'agents', body: gapAnswerPage({ agent, gap, days, csrf: sessionOf(res).session.csrfToken, values, target }) });
  }));

  router.post('/agents/:id/gaps/:gap/answer', page(async (req, res) => {
    const days = daysOf(req);
    const { scope, agent, gap } = await gapOf(res, idOf(req), idOf(req, 'gap'), days);
    const parsed = AnswerFormSchema.safeParse(req.body);
    const target = await answerTarget(scope, agent.knowledge_sources);
    if (!parsed.success) {
      const values = { title: String(req.body?.title ?? ''), content: String(req.body?.content ?? '') };
      return sendPage(res, { title: 'Write an answer', active: 'agents', status: 422, error: 'Give the answer a title and a text.', body: gapAnswerPage({ agent, gap, days, csrf: sessionOf(res).session.csrfToken, values, target }) });
    }
    const record = { title: parsed.data.title, content: parsed.data.content };
    let sourceId = target.sourceId;
    let recordId: string | undefined;
    if (sourceId) {
      recordId = (await services.knowledgeRecords.addRecord({ ...scope, knowledgeBaseId: target.knowledgeBaseId, sourceId, record })).id;
    } else {
      const source = await services.knowledgeSources.addSource({ principal: principalOf(res), knowledgeBaseId: target.knowledgeBaseId, type: 'record', records: [record], refresh: 'manual', metadata: { created_by: ANSWERS_SOURCE_TITLE } });
      sourceId = source.id;
      await waitUntilIndexed(() => services.knowledgeSources.getSource({ ...scope, knowledgeBaseId: target.knowledgeBaseId, sourceId: source.id }));
    }
    const results = [];
    for (const example of gap.examples) results.push(await reask(scope, agent.id, example.text));
    const recordUrl = `/console/knowledge/${target.knowledgeBaseId}/sources/${sourceId}${recordId ? `/records/${recordId}` : ''}`;
    sendPage(res, { title: 'Answer saved', active: 'agents', body: gapCheckPage({ agent, days, recordUrl, results }) });
  }));

  /** One question asked again through the agent, in a console test chat of its own. */
  async function reask(scope: Scope, agentId: string, question: string) {
    const conversation = await services.conversations.createConversation({ ...scope, agent_id: agentId, test: true, metadata: { console_gap_check: 'true' } });
    const message = await services.conversations.postMessage({ ...scope, conversationId: conversation.id, testChatOfAgent: agentId, role: 'customer', content: question, waitMs: REASK_WAIT_MS });
    const run = message.run;
    const answered = run?.status === 'completed' && run.reply !== null && run.handoff === null;
    const why = !run ? 'no run' : run.handoff ? `handed off: ${run.handoff.reason.replace(/_/g, ' ')}` : run.status !== 'completed' ? `run ${run.status}` : null;
    return { question, answered, reply: answered ? run!.reply!.content : null, why };
  }
}

/** Waits for a new source's first sync to finish (ready or failed), up to NEW_SOURCE_WAIT_MS. */
async function waitUntilIndexed(read: () => Promise<{ status: string }>) {
  const deadline = Date.now() + NEW_SOURCE_WAIT_MS;
  while (Date.now() < deadline) {
    const { status } = await read();
    if (status !== 'indexing') return;
    await new Promise((r) => setTimeout(r, 250));
  }
}
