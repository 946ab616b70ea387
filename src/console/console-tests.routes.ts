import type { Response, Router } from 'express';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { AppError } from '../domain/errors';
import { scopeOf, type Scope } from '../domain/principal';
import type { TestCaseDefinitionInput } from '../evaluations/evaluation.schemas';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { ConversationsService } from '../conversations/conversations.service';
import type { EvaluationsService } from '../evaluations/evaluations.service';
import type { TestCasesService } from '../evaluations/test-cases.service';
import { evaluationPage, testsPage } from './views/tests.view';
import { truncate } from '../platform/text';

const YamlBodySchema = z.object({ yaml: z.string().max(200_000) });
const AddToTestsSchema = z.object({ message_id: z.string().startsWith('msg_'), expect: z.enum(['reply', 'handoff']) });

/** YAML text (one case, or a list / an agent file for import) as a value; 400 with the parser's message. */
function readYaml(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (err) {
    throw new AppError('parameter_invalid', `Not valid YAML: ${(err as Error).message}`, { param: 'yaml' });
  }
}

/** The facts a human's answer states, as `contains_one_of` keeps them: its figures with their unit, else its first sentence. */
export function factsOf(answer: string): string[] {
  const figures = [...answer.matchAll(/\d[\d.,:]*(?:\s*(?:to|-|–)\s*\d[\d.,:]*)?\s+[\p{L}]+(?:\s+[\p{L}]+)?/gu)].map((m) => m[0].trim());
  if (figures.length) return [...new Set(figures)].slice(0, 5);
  const sentence = answer.split(/(?<=[.!?])\s+/)[0]!.trim();
  return [sentence.slice(0, 500)];
}

/** The services these console pages use. */
interface ConsoleTestServices { agents: AgentsService; conversations: ConversationsService; evaluations: EvaluationsService; testCases: TestCasesService }

/**
 * The agent's Tests tab (cases: add, edit, delete, import from YAML; "Run against draft"; evaluations with
 * their results per case), and "Add to tests" on a customer turn of an inbox conversation.
 */
export function registerConsoleTestRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleTestServices>) {
  const ui = { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace };

  async function renderTests(res: Response, agentId: string, opts: { editId?: string; error?: string; draftYaml?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const agent = await services.agents.getAgent({ ...scope, agentId });
    const cases = (await services.testCases.listTestCases({ ...scope, agentId, page: { limit: 100 } })).data.reverse();
    const evaluations = (await services.evaluations.listEvaluations({ ...scope, agentId, page: { limit: 20 } })).data;
    const edited = opts.editId ? cases.find((c) => c.id === opts.editId) : undefined;
    const editing = edited
      ? { id: edited.id, yaml: stringifyYaml({ name: edited.name, channel: edited.channel, ...(edited.locale ? { locale: edited.locale } : {}), turns: edited.turns, ...(edited.tool_results.length ? { tool_results: edited.tool_results } : {}) }) }
      : undefined;
    sendPage(res, {
      title: `${agent.name}: tests`,
      active: 'agents',
      status: opts.status,
      body: testsPage({ agent, cases, evaluations, csrf: session.csrfToken, editing, error: opts.error, draftYaml: opts.draftYaml }),
    });
  }

  /** Runs `fn`; a bad case (400, 422) shows the Tests tab again with the message and the text as typed. */
  async function orShowError(res: Response, agentId: string, text: string, fn: () => Promise<unknown>, done: string) {
    try {
      await fn();
      res.redirect(303, done);
    } catch (err) {
      if (!(err instanceof AppError) || (err.status !== 400 && err.status !== 422)) throw err;
      await renderTests(res, agentId, { error: err.message, draftYaml: text, status: 422 });
    }
  }

  router.get('/agents/:id/tests', page(async (req, res) => {
    await renderTests(res, idOf(req), { editId: typeof req.query.edit === 'string' ? req.query.edit : undefined });
  }));

  router.post('/agents/:id/tests', page(async (req, res) => {
    const { session } = sessionOf(res);
    const { yaml } = YamlBodySchema.parse(req.body);
    await orShowError(res, idOf(req), yaml, () => services.testCases.createTestCase({ ...scopeOf(session), agentId: idOf(req), definition: readYaml(yaml) }), `/console/agents/${idOf(req)}/tests`);
  }));

  router.post('/agents/:id/tests/import', page(async (req, res) => {
    const { session } = sessionOf(res);
    const { yaml } = YamlBodySchema.parse(req.body);
    await orShowError(res, idOf(req), '', () => importCases(scopeOf(session), idOf(req), readYaml(yaml)), `/console/agents/${idOf(req)}/tests`);
  }));

  router.post('/agents/:id/tests/:caseId', page(async (req, res) => {
    const { session } = sessionOf(res);
    const { yaml } = YamlBodySchema.parse(req.body);
    const caseId = idOf(req, 'caseId');
    await orShowError(res, idOf(req), yaml, () => services.testCases.updateTestCase({ ...scopeOf(session), agentId: idOf(req), caseId, definition: readYaml(yaml) }), `/console/agents/${idOf(req)}/tests`);
  }));

  router.post('/agents/:id/tests/:caseId/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.testCases.deleteTestCase({ ...scopeOf(session), agentId: idOf(req), caseId: idOf(req, 'caseId') });
    res.redirect(303, `/console/agents/${idOf(req)}/tests`);
  }));

  router.post('/agents/:id/evaluations', page(async (req, res) => {
    const { session } = sessionOf(res);
    const evaluation = await services.evaluations.createEvaluation({ ...scopeOf(session), agentId: idOf(req), version: 'draft' });
    res.redirect(303, `/console/agents/${idOf(req)}/evaluations/${evaluation.id}`);
  }));

  router.get('/agents/:id/evaluations/:evaluationId', page(async (req, res) => {
    const { session } = sessionOf(res);
    const agent = await services.agents.getAgent({ ...scopeOf(session), agentId: idOf(req) });
    const evaluation = await services.evaluations.getEvaluation({ ...scopeOf(session), evaluationId: idOf(req, 'evaluationId') });
    if (evaluation.agent_id !== agent.id) throw new AppError('resource_missing', `No evaluation ${evaluation.id} for this agent`);
    sendPage(res, { title: `${agent.name}: evaluation`, active: 'agents', body: evaluationPage({ agent, evaluation, ui }) });
  }));

  // "Add to tests" on a customer turn: the turns up to it, and what the user picks: the answer the person gave (reply with its facts) or a handoff.
  router.post('/inbox/:id/add-to-tests', page(async (req, res) => {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const body = AddToTestsSchema.parse(req.body);
    const conversation = await services.conversations.getConversation({ ...scope, conversationId: idOf(req) });
    const agentId = conversation.agent_id;
    if (agentId === null) throw new AppError('resource_conflict', 'This conversation has no agent to test: the team answers it', { param: 'id' });
    const messages = (await services.conversations.listMessages({ ...scope, conversationId: conversation.id, page: { limit: 100 } })).data;
    const at = messages.findIndex((m) => m.id === body.message_id && m.role === 'customer');
    if (at < 0) throw new AppError('resource_missing', `No customer message ${body.message_id} in this conversation`, { param: 'message_id' });
    let expect: NonNullable<TestCaseDefinitionInput['turns'][number]['expect']> = { handoff: {} };
    if (body.expect === 'reply') {
      const answer = messages.slice(at + 1).find((m) => m.role === 'human' || m.role === 'agent');
      if (!answer) throw new AppError('parameter_invalid', 'Nobody answered this turn yet: pick handoff, or answer it first', { param: 'expect' });
      expect = { reply: { contains_one_of: factsOf(answer.content) } };
    }
    const customerTurns = messages.slice(0, at + 1).filter((m) => m.role === 'customer');
    const definition: TestCaseDefinitionInput = {
      // What the customer asked, what must happen, and where it came from (names are unique per agent).
      name: `"${truncate(customerTurns.at(-1)!.content.replace(/\s+/g, ' ').trim(), 80)}" → ${body.expect} (from ${conversation.id}, turn ${customerTurns.length})`,
      channel: conversation.channel,
      ...(typeof conversation.customer.locale === 'string' ? { locale: conversation.customer.locale } : {}),
      turns: customerTurns.map((m, i) => ({ customer: m.content, channel: m.channel, ...(i === customerTurns.length - 1 ? { expect } : {}) })),
    };
    const created = await services.testCases.createTestCase({ ...scope, agentId, definition });
    res.redirect(303, `/console/agents/${agentId}/tests?edit=${created.id}`);
  }));

  /** An agent file or a `tests:` list: each case created, or replaced when the agent has one of that name; none deleted. */
  async function importCases(scope: Scope, agentId: string, doc: unknown) {
    const tests = doc && typeof doc === 'object' && !Array.isArray(doc) && 'tests' in doc ? (doc as { tests: unknown }).tests : doc;
    await services.testCases.replaceAgentTests({ ...scope, agentId, tests, deleteMissing: false });
  }
}
