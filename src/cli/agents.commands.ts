import { AppError } from '../domain/errors';
import { formatEvaluationTable } from '../evaluations/evaluation-table';
import { readCommandFile, type ReadCliFile } from './cli-files';
import type { CliServices } from './cli-services';

export interface AgentsCommandInput {
  action: string | undefined;
  account?: string;
  /** The mode the agents belong to (test unless true). */
  livemode?: boolean;
  agent?: string;
  /** `apply`: the YAML (or JSON) file. */
  file?: string;
  readFile?: ReadCliFile;
}

/**
 * `agents apply|list|publish|export`: returns what to print (JSON; export: the agent's YAML), or null when the arguments do not make a
 * command (the caller prints usage). Invalid configs throw the AgentsService's AppError, whose message
 * names the path at fault (`Invalid agent config at tools.0.parameters: …`); nothing is written then.
 */
export async function runAgentsCommand(services: Pick<CliServices, 'accounts' | 'agents' | 'testCases'>, input: AgentsCommandInput): Promise<string | null> {
  const { accounts, agents } = services;
  if (!input.account) return null;
  const accountId = input.account;
  const livemode = input.livemode ?? false;
  if (input.action === 'apply' && input.file) {
    await accounts.getAccount({ accountId });
    const text = await readCommandFile(input.file, input.readFile);
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

/**
 * `agents test FILE`: applies the file's agent as a draft (never publishes) with its `tests:`, evaluates
 * the draft on the running service (its worker runs the cases), waits for the result and answers the
 * table to print and whether every case passed (the CLI exits 1 otherwise).
 */
export async function runAgentsTestCommand(
  services: Pick<CliServices, 'accounts' | 'agents' | 'testCases' | 'evaluations'>,
  input: { account: string; livemode?: boolean; file: string; timeoutMs?: number; pollMs?: number; readFile?: ReadCliFile },
): Promise<{ output: string; passed: boolean }> {
  const scope = { accountId: input.account, livemode: input.livemode ?? false };
  await services.accounts.getAccount({ accountId: scope.accountId });
  const text = await readCommandFile(input.file, input.readFile);
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
