import type { Kysely } from 'kysely';
import type { AgentsService } from '../agents/agents.service';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import { EvaluationRepo, type TestCaseRow } from './evaluation.repo';
import { declaredResultProblem, TestCaseDefinitionSchema, type TestCaseDefinition, type TestCaseObject } from './evaluation.schemas';

/** A case's definition read back from its row (stored as validated). */
export const definitionOf = (row: TestCaseRow): TestCaseDefinition => TestCaseDefinitionSchema.parse(row.definition);

export function toTestCaseObject(row: TestCaseRow): TestCaseObject {
  const d = definitionOf(row);
  return {
    id: row.id,
    object: 'test_case',
    livemode: row.livemode,
    agent_id: row.agent_id,
    name: d.name,
    channel: d.channel,
    locale: d.locale ?? null,
    customer: d.customer ?? {},
    context: d.context ?? {},
    turns: d.turns,
    tool_results: d.tool_results as Record<string, unknown>[],
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Parses a definition; a problem is 400 naming the path (`tests.2.turns.0.expect`, `turns.0.customer`). */
export function parseDefinition(value: unknown, prefix: (string | number)[] = []): TestCaseDefinition {
  const parsed = TestCaseDefinitionSchema.safeParse(value);
  if (parsed.success) {
    // Rules the published schema cannot state: 422, as the API answers a request that matches its schema.
    parsed.data.tool_results.forEach((d, i) => {
      const problem = declaredResultProblem(d);
      const param = [...prefix, 'tool_results', i].join('.');
      if (problem) throw new AppError('parameter_unprocessable', `Invalid test case at ${param}: ${problem}`, { param });
    });
    return parsed.data;
  }
  const issue = parsed.error.issues[0]!;
  const param = [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))].join('.');
  const extra = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
  throw new AppError('parameter_invalid', `Invalid test case${param ? ` at ${param}` : ''}: ${issue.message}${extra}`, { param: param || undefined });
}

/**
 * An agent's test cases (the conversations its evaluations replay): authored through the API, the
 * console, or the `tests:` of the agent's YAML (`agents apply` keeps them: cases are matched by name).
 */
const nameTaken = (name: string) => new AppError('resource_conflict', `The agent has a test case named '${name}' already`, { param: 'name' });

/** The same 409 when two requests race past assertNameFree and the unique index (agent, name) refuses the second. */
async function nameTakenAsConflict<T>(name: string, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw nameTaken(name);
    throw err;
  }
}

export class TestCasesService {
  private readonly repo = new EvaluationRepo();

  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService }) {}

  async createTestCase(input: Scope & { agentId: string; definition: unknown }): Promise<TestCaseObject> {
    await this.deps.agents.getAgent({ ...scopeOf(input), agentId: input.agentId });
    const definition = parseDefinition(input.definition);
    await this.assertNameFree(input.agentId, definition.name);
    const row = await nameTakenAsConflict(definition.name, this.repo.insertTestCase(this.deps.db, {
      id: newId(IdPrefix.testCase),
      account_id: input.accountId,
      livemode: input.livemode,
      agent_id: input.agentId,
      name: definition.name,
      definition: JSON.stringify(definition),
    }));
    return toTestCaseObject(row);
  }

  async updateTestCase(input: Scope & { agentId: string; caseId: string; definition: unknown }): Promise<TestCaseObject> {
    const current = await this.getRow(input, input.agentId, input.caseId);
    const definition = parseDefinition(input.definition);
    if (definition.name !== current.name) await this.assertNameFree(input.agentId, definition.name);
    return toTestCaseObject(await nameTakenAsConflict(definition.name, this.repo.updateTestCase(this.deps.db, current.id, { name: definition.name, definition: JSON.stringify(definition) })));
  }

  async deleteTestCase(input: Scope & { agentId: string; caseId: string }) {
    const current = await this.getRow(input, input.agentId, input.caseId);
    await this.repo.deleteTestCases(this.deps.db, [current.id]);
    return { id: current.id, object: 'test_case', deleted: true as const };
  }

  async getTestCase(input: Scope & { agentId: string; caseId: string }): Promise<TestCaseObject> {
    return toTestCaseObject(await this.getRow(input, input.agentId, input.caseId));
  }

  async listTestCases(input: Scope & { agentId: string; page: PageParams }) {
    await this.deps.agents.getAgent({ ...scopeOf(input), agentId: input.agentId });
    const page = await this.repo.listTestCasesPage(this.deps.db, scopeOf(input), input.agentId, input.page);
    return { object: 'list' as const, data: page.data.map(toTestCaseObject), has_more: page.has_more };
  }

  /**
   * The `tests:` of an agent file: every entry validated first (a bad one changes nothing), then, in one
   * transaction, cases are created or replaced by name and the agent's cases the file no longer names are
   * deleted, unless `deleteMissing: false` (the console's import keeps them).
   */
  async replaceAgentTests(input: Scope & { agentId: string; tests: unknown; deleteMissing?: boolean }): Promise<{ created: number; updated: number; deleted: number }> {
    const definitions = this.parseAgentFileTests(input.tests);
    const names = new Set(definitions.map((d) => d.name));
    await this.deps.agents.getAgent({ ...scopeOf(input), agentId: input.agentId });
    return this.deps.db.transaction().execute(async (tx) => {
      const existing = await this.repo.listTestCases(tx, input.agentId);
      let created = 0;
      let updated = 0;
      // New cases keep the file's order (cases are listed and evaluated by creation time).
      const now = Date.now();
      for (const [i, d] of definitions.entries()) {
        const row = existing.find((e) => e.name === d.name);
        if (row) {
          // An unchanged case is left as it is (applying an exported file changes nothing).
          if (JSON.stringify(definitionOf(row)) === JSON.stringify(d)) continue;
          await this.repo.updateTestCase(tx, row.id, { name: d.name, definition: JSON.stringify(d) });
          updated++;
        } else {
          const at = new Date(now + i);
          await this.repo.insertTestCase(tx, { id: newId(IdPrefix.testCase), account_id: input.accountId, livemode: input.livemode, agent_id: input.agentId, name: d.name, definition: JSON.stringify(d), created_at: at, updated_at: at });
          created++;
        }
      }
      const gone = input.deleteMissing === false ? [] : existing.filter((e) => !names.has(e.name)).map((e) => e.id);
      await this.repo.deleteTestCases(tx, gone);
      return { created, updated, deleted: gone.length };
    });
  }

  /** The `tests:` of an agent file, each entry validated (400 naming `tests.<i>.…`), names unique. */
  parseAgentFileTests(tests: unknown): TestCaseDefinition[] {
    if (!Array.isArray(tests)) throw new AppError('parameter_invalid', 'Invalid agent file at tests: a list of test cases', { param: 'tests' });
    const definitions = tests.map((t, i) => parseDefinition(t, ['tests', i]));
    const names = new Set<string>();
    definitions.forEach((d, i) => {
      if (names.has(d.name)) throw new AppError('parameter_invalid', `Invalid agent file at tests.${i}.name: the name '${d.name}' is used twice`, { param: `tests.${i}.name` });
      names.add(d.name);
    });
    return definitions;
  }

  /** The AgentFileTests port of `agents apply`. */
  get agentFileTests() {
    return {
      check: (tests: unknown) => void this.parseAgentFileTests(tests),
      keep: (input: Scope & { agentId: string; tests: unknown }) => this.replaceAgentTests(input),
      list: async (input: Scope & { agentId: string }) => {
        await this.deps.agents.getAgent({ ...scopeOf(input), agentId: input.agentId });
        return (await this.repo.listTestCases(this.deps.db, input.agentId)).map(definitionOf);
      },
    };
  }

  /** A name another case of the agent holds is a conflict with existing state (409), not a malformed request. */
  private async assertNameFree(agentId: string, name: string) {
    if (await this.repo.getTestCaseByName(this.deps.db, agentId, name)) throw nameTaken(name);
  }

  private async getRow(scope: Scope, agentId: string, caseId: string) {
    await this.deps.agents.getAgent({ ...scopeOf(scope), agentId });
    const row = await this.repo.getTestCase(this.deps.db, scopeOf(scope), agentId, caseId);
    if (!row) throw notFound('test case', caseId, 'case_id');
    return row;
  }
}
