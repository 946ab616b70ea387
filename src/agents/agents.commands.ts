import { readFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import { AppError } from '../domain/errors';
import { AccountsService } from '../accounts/accounts.service';
import { KnowledgeBasesService } from '../knowledge/knowledge-bases.service';
import { KnowledgeRetrievalService } from '../knowledge/knowledge-retrieval.service';
import { KnowledgeSourcesService } from '../knowledge/knowledge-sources.service';
import { WorkflowGateway } from '../temporal/workflow-gateway';
import { AgentsService } from './agents.service';
import { EventsService } from '../webhooks/events.service';
import { EvaluationPublishGate } from '../evaluations/evaluation-publish-gate';
import { EvaluationsService } from '../evaluations/evaluations.service';
import { TestCasesService } from '../evaluations/test-cases.service';
import { formatEvaluationTable } from '../evaluations/evaluation-table';

/**
 * The services `npm run cli -- agents …` needs, built on the database alone. Agent commands only read
 * knowledge bases (to check the ids a config names); the knowledge services still take a Temporal
 * gateway, so it gets a lazy connection that never dials because nothing here starts a workflow.
 */
export function buildAgentsCommandServices(input: { config: Config; db: Kysely<DB> }) {
  const { config, db } = input;
  const accounts = new AccountsService({ db });
  const connection = Connection.lazy({ address: config.temporal.address ?? `127.0.0.1:${config.temporal.grpcPort}` });
  const workflows = new WorkflowGateway(new Client({ connection, namespace: config.temporal.namespace }), config.temporal.taskQueue);
  const allowPrivateNetwork = config.network.allowPrivate;
  const retrieval = new KnowledgeRetrievalService({ db, accounts, allowPrivateNetwork, apiTimeoutMs: config.knowledge.apiTimeoutMs });
  const sources = new KnowledgeSourcesService({ db, workflows, allowPrivateNetwork });
  const knowledgeBases = new KnowledgeBasesService({ db, sources, retrieval });
  const agents = new AgentsService({ db, knowledgeBases, allowPrivateNetwork });
  agents.setPublishGate(new EvaluationPublishGate({ db, agents }));
  // `agents test` starts an evaluation on the running service's Temporal (its worker runs the cases).
  const evaluations = new EvaluationsService({ db, agents, events: new EventsService({ db }), workflows, concurrency: config.evaluations.concurrency });
  return {
    accounts, knowledgeBases, agents, testCases: new TestCasesService({ db, agents }), evaluations,
    /** Closes the Temporal connection if a command dialled it. */
    close: () => connection.close().catch(() => undefined),
  };
}

export type AgentsCommandServices = ReturnType<typeof buildAgentsCommandServices>;

export interface AgentsCommandInput {
  action: string | undefined;
  account?: string;
  /** The mode the agents belong to (test unless true). */
  livemode?: boolean;
  agent?: string;
  /** `apply`: the YAML (or JSON) file. */
  file?: string;
}

/**
 * `agents apply|list|publish|export`: returns what to print (JSON; export: the agent's YAML), or null when the arguments do not make a
 * command (the caller prints usage). Invalid configs throw the AgentsService's AppError, whose message
 * names the path at fault (`Invalid agent config at tools.0.parameters: …`); nothing is written then.
 */
export async function runAgentsCommand(services: AgentsCommandServices, input: AgentsCommandInput): Promise<string | null> {
  const { accounts, agents } = services;
  if (!input.account) return null;
  const accountId = input.account;
  const livemode = input.livemode ?? false;
  if (input.action === 'apply' && input.file) {
    await accounts.getAccount({ accountId });
    const text = await readAgentFile(input.file);
    const { agent, created } = await agents.applyAgentFile({ accountId, livemode, text, tests: services.testCases.agentFileTests });
    return JSON.stringify({ id: agent.id, name: agent.name, status: agent.status, version: agent.version, created }, null, 2);
  }
  if (input.action === 'list') {
    await accounts.getAccount({ accountId });
    const rows: { id: string; name: string; status: string; version: number }[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await agents.listAgents({ accountId, livemode, page: { limit: 100, starting_after: after } });
      rows.push(...page.data.map((a) => ({ id: a.id, name: a.name, status: a.status, version: a.version })));
      if (!page.has_more || page.data.length === 0) break;
      after = page.data.at(-1)!.id;
    }
    return JSON.stringify(rows, null, 2);
  }
  if (input.action === 'export' && input.agent) {
    return agents.exportAgentFile({ accountId, livemode, agentId: input.agent, tests: services.testCases.agentFileTests });
  }
  if (input.action === 'publish' && input.agent) {
    const agent = await agents.publishAgent({ accountId, livemode, agentId: input.agent });
    return JSON.stringify({ id: agent.id, name: agent.name, status: agent.status, version: agent.version }, null, 2);
  }
  return null;
}

async function readAgentFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new AppError('parameter_invalid', `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * `agents test FILE`: applies the file's agent as a draft (never publishes) with its `tests:`, evaluates
 * the draft on the running service (its worker runs the cases), waits for the result and answers the
 * table to print and whether every case passed (the CLI exits 1 otherwise).
 */
export async function runAgentsTestCommand(
  services: Pick<AgentsCommandServices, 'accounts' | 'agents' | 'testCases' | 'evaluations'>,
  input: { account: string; livemode?: boolean; file: string; timeoutMs?: number; pollMs?: number },
): Promise<{ output: string; passed: boolean }> {
  const scope = { accountId: input.account, livemode: input.livemode ?? false };
  await services.accounts.getAccount({ accountId: scope.accountId });
  const text = await readAgentFile(input.file);
  const { agent } = await services.agents.applyAgentFile({ ...scope, text, tests: services.testCases.agentFileTests, draftOnly: true });
  const started = await services.evaluations.createEvaluation({ ...scope, agentId: agent.id, version: 'draft' });
  const deadline = Date.now() + (input.timeoutMs ?? 10 * 60_000);
  for (;;) {
    const evaluation = await services.evaluations.getEvaluation({ ...scope, evaluationId: started.id });
    if (evaluation.status === 'completed') return { output: formatEvaluationTable(evaluation, agent.name), passed: evaluation.passed === true };
    if (Date.now() > deadline) {
      throw new AppError('service_unavailable', `Evaluation ${started.id} did not complete in time (${evaluation.cases.length} of ${evaluation.case_count} cases done): is the service's worker running?`);
    }
    await new Promise((r) => setTimeout(r, input.pollMs ?? 250));
  }
}
