import type { Kysely } from 'kysely';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { AppError, notFound, referenceMissing } from '../domain/errors';
import { scopeOf, type Scope } from '../domain/principal';
import { IdPrefix, newId } from '../domain/ids';
import type { KnowledgeBasesService } from '../knowledge/knowledge-bases.service';
import { secretLookingQueryParam } from '../domain/url-secrets';
import { validateToolSchema } from './guardrails/tool-argument-validation';
import { AgentRepo, canonicalJson } from './agent.repo';
import { assertOutboundUrl } from '../platform/outbound-http';
import { AgentConfigSchema, toAgentObject, type AgentConfig, type AgentConfigInput, type AgentObject } from './agent.schemas';

/** A published version as a run uses it. */
export interface AgentVersion {
  agentId: string;
  version: number;
  config: AgentConfig;
}

/** What publishing an agent with `require_passing_evaluation` must pass (the evaluations area implements it). */
export interface AgentPublishGate {
  /** `draft`: the draft being published, as `publishAgent` has just validated it. */
  assertPublishable(input: Scope & { agentId: string; draft: AgentConfig }): Promise<void>;
}

/** Keeps the `tests:` of an agent file (the evaluations area): `check` throws for a bad entry before anything is written. */
export interface AgentFileTests {
  check(tests: unknown): void;
  keep(input: Scope & { agentId: string; tests: unknown }): Promise<unknown>;
  /** The agent's cases as a file's `tests:` holds them, in their order (for `agents export`). */
  list(input: Scope & { agentId: string }): Promise<unknown[]>;
}

/** Describes a config problem the way a person editing YAML or a console form needs it: where and what. */
function configError(path: (string | number)[], message: string): AppError {
  const param = path.join('.');
  return new AppError('parameter_invalid', `Invalid agent config${param ? ` at ${param}` : ''}: ${message}`, { param: param || undefined });
}

/**
 * Agents and their versions. A draft is created and edited (console, `agents apply`); publishing freezes
 * it as a new immutable version that goes live; conversations start only with a live agent and each run
 * records the version it used.
 */
export class AgentsService {
  private readonly repo = new AgentRepo();
  /** Published versions never change: each is read from Postgres once per process (bounded). */
  private readonly versions = new Map<string, AgentVersion>();
  private publishGate?: AgentPublishGate;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      knowledgeBases: KnowledgeBasesService;
      /** Tool endpoints may point at private or loopback addresses (ALLOW_PRIVATE_NETWORK). */
      allowPrivateNetwork: boolean;
    },
  ) {}

  /** Parses and checks a config: schema, tool schemas, approval names, knowledge bases of this account. */
  async validateConfig(input: Scope & { config: unknown }): Promise<AgentConfig> {
    const parsed = AgentConfigSchema.safeParse(input.config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const extra = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
      throw configError(issue.path as (string | number)[], issue.message + extra);
    }
    const config = parsed.data;
    const names = new Set<string>();
    config.tools.forEach((tool, i) => {
      if (names.has(tool.name)) throw configError(['tools', i, 'name'], `the tool name '${tool.name}' is used twice`);
      names.add(tool.name);
      const problem = validateToolSchema(tool.parameters);
      if (problem) throw configError(['tools', i, 'parameters', ...problem.path], problem.message);
      // A live agent's tools are called over https only; test mode may use http. Private and loopback
      // addresses only where the operator allows them. 422 url_not_allowed otherwise (as webhooks, sources).
      assertOutboundUrl(tool.endpoint, { allowPrivate: this.deps.allowPrivateNetwork, requireHttps: input.livemode }, `tools.${i}.endpoint`);
      // The endpoint is shown to every console user and key of the account: no credentials in its query.
      const secret = secretLookingQueryParam(tool.endpoint);
      if (secret) {
        throw configError(['tools', i, 'endpoint'], `the query parameter '${secret.name}' looks like a credential (${secret.reason === 'name' ? 'by its name' : 'a long random value'}); URLs are shown to everyone with access to the account: authenticate calls by their Service-Signature header instead`);
      }
    });
    config.guardrails.requires_approval.forEach((name, i) => {
      if (!names.has(name)) throw configError(['guardrails', 'requires_approval', i], `no tool named '${name}'`);
    });
    config.tools.forEach((tool, i) => {
      if (tool.approver_roles && !config.guardrails.requires_approval.includes(tool.name)) {
        throw configError(['tools', i, 'approver_roles'], `approver_roles names who approves '${tool.name}', but it needs no approval: add it to guardrails.requires_approval`);
      }
    });
    for (const [i, kb] of config.knowledge_bases.entries()) {
      try {
        await this.deps.knowledgeBases.getBase({ ...scopeOf(input), knowledgeBaseId: kb.id });
      } catch (err) {
        if (err instanceof AppError && err.code === 'resource_missing') throw configError(['knowledge_bases', i, 'id'], `no knowledge base '${kb.id}' in this account`);
        throw err;
      }
    }
    return config;
  }

  async createAgent(input: Scope & { config: AgentConfigInput }) {
    const config = await this.validateConfig(input);
    if (await this.repo.getAgentByName(this.deps.db, input, config.name)) {
      throw new AppError('parameter_invalid', `An agent named '${config.name}' exists already`, { param: 'name' });
    }
    const row = await this.repo.insertAgent(this.deps.db, { id: newId(IdPrefix.agent), account_id: input.accountId, livemode: input.livemode, name: config.name, draft: config });
    return toAgentObject(row, config);
  }

  async updateDraft(input: Scope & { agentId: string; config: AgentConfigInput }) {
    await this.getRow(input, input.agentId);
    const config = await this.validateConfig(input);
    const row = await this.repo.updateDraft(this.deps.db, input.agentId, config, config.name);
    return toAgentObject(row, config);
  }

  /** Set once by the composition (evaluations sit above agents): checked before publishing when the draft requires it. */
  setPublishGate(gate: AgentPublishGate): void {
    this.publishGate = gate;
  }

  /**
   * Freezes the draft as a new version and makes it live (when the draft requires a passing evaluation,
   * after the gate). A draft identical to the live version is not published again: the agent is answered
   * as it is, its version unchanged (a no-op, so applying the same file twice makes one version).
   */
  async publishAgent(input: Scope & { agentId: string }): Promise<AgentObject> {
    return (await this.publish(input)).agent;
  }

  /** `publishAgent`, also saying whether a version was published (false: the draft was the live version). */
  async publish(input: Scope & { agentId: string }): Promise<{ agent: AgentObject; published: boolean }> {
    const current = await this.getRow(input, input.agentId);
    const draft = await this.validateConfig({ ...scopeOf(input), config: current.draft });
    if (current.live_version !== null) {
      const live = await this.getVersion({ agentId: current.id, version: current.live_version });
      if (canonicalJson(live.config) === canonicalJson(draft)) return { agent: toAgentObject(current, live.config), published: false };
    }
    if (draft.require_passing_evaluation) {
      if (!this.publishGate) throw new AppError('evaluation_required', `Agent ${current.id} requires a passing evaluation, which this process cannot check`);
      await this.publishGate.assertPublishable({ ...scopeOf(input), agentId: current.id, draft });
    }
    // The draft validated (and evaluated) above is the one published: an edit in between is refused.
    const published = await this.repo.publishDraft(this.deps.db, current.id, current.draft);
    if (!published) throw new AppError('resource_conflict', `Agent ${current.id}'s draft changed while it was being published; publish again`);
    return { agent: toAgentObject(published.row, AgentConfigSchema.parse(published.row.draft)), published: published.published };
  }

  /**
   * Applies an agent kept as code (YAML or JSON text): creates it or replaces the draft of the agent with
   * the same name, keeps its `tests:` (through `tests`, the evaluations area: checked before anything is
   * written, kept before publishing), and publishes it unless `publish: false` (or `draftOnly`).
   */
  async applyAgentFile(input: Scope & { text: string; tests?: AgentFileTests; draftOnly?: boolean }): Promise<{ agent: AgentObject; created: boolean }> {
    let doc: unknown;
    try {
      doc = parseYaml(input.text);
    } catch (err) {
      throw new AppError('parameter_invalid', `The agent file is not valid YAML: ${(err as Error).message}`);
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new AppError('parameter_invalid', 'The agent file must hold one mapping (name, channels, …)');
    const { publish = true, tests, ...config } = doc as Record<string, unknown> & { publish?: boolean; tests?: unknown };
    const validated = await this.validateConfig({ ...scopeOf(input), config });
    if (tests !== undefined && !input.tests) throw new AppError('parameter_invalid', 'This command does not keep the tests of an agent file', { param: 'tests' });
    if (tests !== undefined) input.tests!.check(tests);
    const existing = await this.repo.getAgentByName(this.deps.db, input, validated.name);
    const agent = existing
      ? await this.updateDraft({ ...scopeOf(input), agentId: existing.id, config: validated })
      : await this.createAgent({ ...scopeOf(input), config: validated });
    if (tests !== undefined) await input.tests!.keep({ ...scopeOf(input), agentId: agent.id, tests });
    const publishes = publish && !input.draftOnly;
    return { agent: publishes ? await this.publishAgent({ ...scopeOf(input), agentId: agent.id }) : agent, created: !existing };
  }

  /**
   * The agent as a file `applyAgentFile` takes back unchanged: its draft (every field, defaults written
   * out), its `tests:` and `publish: false` while the draft differs from the live version (so applying the
   * export never publishes what was not live); applying it changes nothing and publishes no new version.
   */
  async exportAgentFile(input: Scope & { agentId: string; tests: AgentFileTests }): Promise<string> {
    const row = await this.getRow(input, input.agentId);
    const draft = AgentConfigSchema.parse(row.draft);
    const live = row.live_version === null ? undefined : (await this.getVersion({ agentId: row.id, version: row.live_version })).config;
    const draftIsLive = live !== undefined && canonicalJson(live) === canonicalJson(draft);
    const tests = await input.tests.list({ ...scopeOf(input), agentId: row.id });
    const header = [
      `# Agent ${row.id} (${row.livemode ? 'live' : 'test'} mode), exported ${draftIsLive ? `at version ${row.live_version}` : live ? `with a draft that differs from version ${row.live_version}` : 'as a draft never published'}.`,
      '# Apply it with: npm run cli -- agents apply --account <acct_id> <this file>',
      '',
    ].join('\n');
    const file = { ...draft, ...(draftIsLive ? {} : { publish: false }), ...(tests.length > 0 ? { tests } : {}) };
    return `${header}${stringifyYaml(file, { lineWidth: 0 })}`;
  }

  /** `param`: the field that names the agent, for a 404 (default id, the path's). */
  async getAgent(input: Scope & { agentId: string; param?: string }): Promise<AgentObject> {
    const row = await this.getRow(input, input.agentId, input.param);
    return toAgentObject(row, await this.shownConfig(row));
  }

  async listAgents(input: Scope & { page: PageParams }) {
    const page = await this.repo.listAgents(this.deps.db, input, input.page);
    const data = await Promise.all(page.data.map(async (row) => toAgentObject(row, await this.shownConfig(row))));
    return { object: 'list' as const, data, has_more: page.has_more };
  }

  /** The editable draft as authored (the API shows the live version instead). */
  async getDraft(input: Scope & { agentId: string }): Promise<{ agent: AgentObject; draft: AgentConfig; liveVersion: number | null }> {
    const row = await this.getRow(input, input.agentId);
    const draft = AgentConfigSchema.parse(row.draft);
    return { agent: toAgentObject(row, await this.shownConfig(row)), draft, liveVersion: row.live_version };
  }

  async findAgentByName(input: Scope & { name: string }) {
    return this.repo.getAgentByName(this.deps.db, input, input.name);
  }

  /**
   * The live version a new run uses; 422 agent_not_live for a draft-only agent. `param`: the field that
   * names the agent (default agent_id). `attached`: a request on another object names it in its body (a
   * number's or an email address's agent), so a missing one (or another mode's) is 422 naming `param`
   * (referenceMissing), not 404.
   */
  async getLiveVersion(input: Scope & { agentId: string; param?: string; attached?: boolean }): Promise<AgentVersion> {
    const param = input.param ?? 'agent_id';
    const row = await this.repo.getAgentById(this.deps.db, input, input.agentId);
    if (!row) throw input.attached ? referenceMissing('agent', input.agentId, param) : notFound('agent', input.agentId, param);
    if (row.live_version === null) throw new AppError('agent_not_live', `Agent ${row.id} is a draft: publish it before starting conversations`, { param });
    return this.getVersion({ agentId: row.id, version: row.live_version });
  }

  async getVersion(input: { agentId: string; version: number }): Promise<AgentVersion> {
    const key = `${input.agentId}@${input.version}`;
    const cached = this.versions.get(key);
    if (cached) return cached;
    const v = await this.repo.getVersion(this.deps.db, input.agentId, input.version);
    if (!v) throw notFound('agent version', key);
    const version = { agentId: v.agent_id, version: v.version, config: AgentConfigSchema.parse(v.config) };
    if (this.versions.size >= 1000) this.versions.delete(this.versions.keys().next().value!);
    this.versions.set(key, version);
    return version;
  }

  /**
   * The draft as a run can use it, for the console's test chat: a frozen snapshot stored as a hidden
   * version with a negative number (-1, -2, …), never live and not listed among the versions. An unchanged
   * draft reuses its latest snapshot. Runs record it like any version, so a test run stays reproducible.
   */
  async snapshotDraft(input: Scope & { agentId: string; param?: string }): Promise<AgentVersion> {
    const row = await this.getRow(input, input.agentId, input.param);
    const config = await this.validateConfig({ ...scopeOf(input), config: row.draft });
    const version = await this.repo.snapshotDraft(this.deps.db, row.id, config);
    return this.getVersion({ agentId: row.id, version });
  }

  /**
   * The snapshot version `snapshotDraft` would reuse for this validated draft of the agent, without storing
   * one; undefined when it would store a new one (so no run or evaluation has used this draft as it is).
   */
  async reusableDraftSnapshot(input: { agentId: string; draft: AgentConfig }): Promise<number | undefined> {
    return this.repo.reusableSnapshot(this.deps.db, input.agentId, input.draft);
  }

  /** Published versions, newest first (draft snapshots of the test chat are not versions). */
  async listVersions(input: Scope & { agentId: string }) {
    await this.getRow(input, input.agentId);
    const rows = (await this.repo.listVersions(this.deps.db, input.agentId)).filter((v) => v.version > 0);
    return rows.map((v) => ({ version: v.version, published_at: v.published_at.toISOString(), config: AgentConfigSchema.parse(v.config) }));
  }

  private async shownConfig(row: { id: string; live_version: number | null; draft: unknown }): Promise<AgentConfig> {
    if (row.live_version === null) return AgentConfigSchema.parse(row.draft);
    return (await this.getVersion({ agentId: row.id, version: row.live_version })).config;
  }

  private async getRow(scope: Scope, agentId: string, param = 'id') {
    const row = await this.repo.getAgentById(this.deps.db, scope, agentId);
    if (!row) throw notFound('agent', agentId, param);
    return row;
  }
}
