import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAgentsCommand } from '../../src/cli/agents.commands';
import { buildCliServices, type StandaloneCliServices } from '../../src/cli/cli-services';
import { AppError } from '../../src/domain/errors';
import { exampleAgentConfig } from '../../src/app/dev-examples';
import { buildTestConfig } from '../support/config';
import { runCliProcess } from '../support/cli-process';
import { createTestDatabase, type TestDatabase } from '../support/db';

/**
 * `npm run cli -- agents apply|list|publish`: an agent kept as code, validated with messages that name the
 * field at fault, and versioned on every apply. Real Postgres; the CLI itself is spawned once per outcome.
 */
const repo = path.resolve(__dirname, '../..');
const example = readFileSync(path.join(repo, 'examples/agents/support-agent.yaml'), 'utf8');
let database: TestDatabase;
let services: StandaloneCliServices;
let accountId: string;
let kbId: string;
let dir: string;

/** The example file pointed at this account's knowledge base, with `edit` applied to its text. */
function exampleFile(name: string, edit: (text: string) => string = (t) => t): string {
  const file = path.join(dir, name);
  writeFileSync(file, edit(example.replace('kb_replace_with_your_knowledge_base_id', kbId)));
  return file;
}

const apply = (file: string) => runAgentsCommand(services, { action: 'apply', account: accountId, file });

/** Asserts that applying `file` fails with an AppError whose message matches `message`. */
async function rejects(file: string, message: RegExp) {
  await assert.rejects(apply(file), (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.match(err.message, message);
    return true;
  });
}

before(async () => {
  database = await createTestDatabase(__filename);
  services = buildCliServices({ config: buildTestConfig(), db: database.db });
  accountId = (await services.accounts.createAccount({ name: 'Acme' })).id;
  kbId = (await services.knowledgeBases.createBase({ accountId, livemode: false, name: 'Help center' })).id;
  dir = mkdtempSync(path.join(os.tmpdir(), 'agents-apply-'));
});

after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database?.destroy();
});

describe('agents apply', () => {
  it('refuses a live agent whose tool endpoint is plain http (422 url_not_allowed), and a private address unless the operator allows it (M5)', async () => {
    const liveAccount = (await services.accounts.createAccount({ name: 'Live' })).id;
    const liveKb = (await services.knowledgeBases.createBase({ accountId: liveAccount, livemode: true, name: 'Help center' })).id;
    const file = exampleFile('http-tool.yaml', (t) => t.replace(kbId, liveKb).replace('https://api.acme.example/agent-tools/lookup-order', 'http://api.acme.example/agent-tools/lookup-order'));
    await assert.rejects(runAgentsCommand(services, { action: 'apply', account: liveAccount, file, livemode: true }), (err: unknown) => {
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.code, 'url_not_allowed');
      assert.equal(err.param, 'tools.0.endpoint');
      return true;
    });
    // Test mode may use http.
    const testAccount = (await services.accounts.createAccount({ name: 'Test' })).id;
    const testKb = (await services.knowledgeBases.createBase({ accountId: testAccount, livemode: false, name: 'Help center' })).id;
    const toTest = (t: string) => t.replace(kbId, testKb);
    const testFile = exampleFile('http-tool-test.yaml', (t) => toTest(t).replace('https://api.acme.example/agent-tools/lookup-order', 'http://api.acme.example/agent-tools/lookup-order'));
    assert.equal(JSON.parse((await runAgentsCommand(services, { action: 'apply', account: testAccount, file: testFile }))!).status, 'live');
    // Private and loopback addresses only where ALLOW_PRIVATE_NETWORK is on (tests turn it on).
    const strict = buildCliServices({ config: { ...buildTestConfig(), network: { allowPrivate: false } }, db: database.db });
    const loopback = exampleFile('loopback-tool.yaml', (t) => toTest(t).replace('https://api.acme.example/agent-tools/lookup-order', 'https://127.0.0.1:8443/lookup-order'));
    await assert.rejects(runAgentsCommand(strict, { action: 'apply', account: testAccount, file: loopback }), (err: unknown) => err instanceof AppError && err.code === 'url_not_allowed' && err.param === 'tools.0.endpoint');
    assert.equal(JSON.parse((await runAgentsCommand(services, { action: 'apply', account: testAccount, file: loopback }))!).status, 'live');
  });

  it('creates and publishes version 1 from the example file, then version 2 when the file changes', async () => {
    const first = JSON.parse((await apply(exampleFile('agent.yaml')))!);
    assert.deepEqual({ ...first, id: undefined }, { id: undefined, name: 'Acme support agent', status: 'live', version: 1, created: true });
    assert.match(first.id, /^agt_/);

    const live = await services.agents.getLiveVersion({ accountId, livemode: false, agentId: first.id });
    assert.deepEqual(live.config.channels, ['chat', 'sms']);
    assert.deepEqual(live.config.knowledge_bases, [{ id: kbId, filter: { audience: { in: ['customers', 'everyone'] } } }]);
    assert.deepEqual(live.config.guardrails.requires_approval, ['issue_refund']);
    assert.equal(live.config.tools[0]!.timeout_ms, 5000);
    assert.equal(live.config.tools[0]!.idempotent, true);
    assert.equal(live.config.locale_filter_key, 'locale');

    const changed = exampleFile('agent.yaml', (t) => t.replace('default_queue: support', 'default_queue: tier-2'));
    const second = JSON.parse((await apply(changed))!);
    assert.deepEqual(second, { id: first.id, name: 'Acme support agent', status: 'live', version: 2, created: false });
    const versions = await services.agents.listVersions({ accountId, livemode: false, agentId: first.id });
    assert.deepEqual(versions.map((v) => v.version), [2, 1]);
    assert.equal(versions[0]!.config.handoff.default_queue, 'tier-2');
    assert.equal(versions[1]!.config.handoff.default_queue, 'support');

    const listed = JSON.parse((await runAgentsCommand(services, { action: 'list', account: accountId }))!);
    assert.deepEqual(listed, [{ id: first.id, name: 'Acme support agent', status: 'live', version: 2 }]);
  });

  it('keeps a draft with publish: false, and `agents publish` makes it the next version', async () => {
    const file = exampleFile('draft.yaml', (t) => t.replace('name: Acme support agent', 'name: Draft agent').replace('publish: true', 'publish: false'));
    const draft = JSON.parse((await apply(file))!);
    assert.equal(draft.status, 'draft');
    assert.equal(draft.version, 0);
    const published = JSON.parse((await runAgentsCommand(services, { action: 'publish', account: accountId, agent: draft.id }))!);
    assert.deepEqual(published, { id: draft.id, name: 'Draft agent', status: 'live', version: 1 });
  });

  it('publishes no new version when the draft equals the live version (applying the same file twice, or `agents publish` again)', async () => {
    const file = exampleFile('twice.yaml', (t) => t.replace('name: Acme support agent', 'name: Twice agent'));
    const first = JSON.parse((await apply(file))!);
    assert.equal(first.version, 1);
    const again = JSON.parse((await apply(file))!);
    assert.deepEqual(again, { ...first, created: false }, 'the same file again: still version 1');
    const republished = JSON.parse((await runAgentsCommand(services, { action: 'publish', account: accountId, agent: first.id }))!);
    assert.equal(republished.version, 1);
    const versions = await services.agents.listVersions({ accountId, livemode: false, agentId: first.id });
    assert.deepEqual(versions.map((v) => v.version), [1]);
    // A change still publishes.
    const changed = JSON.parse((await apply(exampleFile('twice.yaml', (t) => t.replace('name: Acme support agent', 'name: Twice agent').replace('default_queue: support', 'default_queue: tier-2'))))!);
    assert.equal(changed.version, 2);
  });

  it('exports any agent (the example file\'s, npm start\'s example, a draft) as YAML that apply takes back unchanged', async () => {
    const exportOf = async (agentId: string) => (await runAgentsCommand(services, { action: 'export', account: accountId, agent: agentId }))!;
    const stateOf = async (agentId: string) => ({
      draft: (await services.agents.getDraft({ accountId, livemode: false, agentId })).draft,
      versions: await services.agents.listVersions({ accountId, livemode: false, agentId }),
      tests: (await services.testCases.listTestCases({ accountId, livemode: false, agentId, page: { limit: 100 } })).data,
    });
    const roundTrip = async (agentId: string, name: string) => {
      const before = await stateOf(agentId);
      const yaml = await exportOf(agentId);
      const file = path.join(dir, name);
      writeFileSync(file, yaml);
      const applied = JSON.parse((await apply(file))!);
      assert.equal(applied.id, agentId);
      assert.equal(applied.created, false);
      assert.deepEqual(await stateOf(agentId), before, `${name}: apply(export) changed the agent`);
      assert.equal(await exportOf(agentId), yaml, `${name}: a second export differs`);
      return { yaml, before };
    };

    // The example file, with its ten tests.
    const fromFile = JSON.parse((await apply(exampleFile('export-source.yaml', (t) => t.replace('name: Acme support agent', 'name: Exported agent'))))!);
    const { yaml, before } = await roundTrip(fromFile.id, 'exported.yaml');
    assert.equal(before.tests.length, 10);
    assert.match(yaml, /^name: Exported agent$/m);
    assert.doesNotMatch(yaml, /^publish:/m, 'the draft is the live version: nothing to hold back');

    // npm start's example agent (created in code, defaults left out).
    const example = await services.agents.createAgent({ accountId, livemode: false, config: exampleAgentConfig(kbId) });
    await services.agents.publishAgent({ accountId, livemode: false, agentId: example.id });
    await roundTrip(example.id, 'example.yaml');

    // A draft never published stays a draft; a live agent with an edited draft keeps its live version.
    const draft = await services.agents.createAgent({ accountId, livemode: false, config: { ...exampleAgentConfig(kbId), name: 'Never published' } });
    assert.match((await roundTrip(draft.id, 'draft.yaml')).yaml, /^publish: false$/m);
    await services.agents.updateDraft({ accountId, livemode: false, agentId: example.id, config: { ...exampleAgentConfig(kbId), instructions: 'Edited, not published.' } });
    assert.match((await roundTrip(example.id, 'edited.yaml')).yaml, /^publish: false$/m);

    // Another account's agent, or another mode's, is not found (nothing of it is printed).
    const stranger = (await services.accounts.createAccount({ name: 'Stranger' })).id;
    const notFound = (err: unknown) => err instanceof AppError && err.code === 'resource_missing';
    await assert.rejects(runAgentsCommand(services, { action: 'export', account: stranger, agent: example.id }), notFound);
    await assert.rejects(runAgentsCommand(services, { action: 'export', account: accountId, agent: example.id, livemode: true }), notFound);
  });

  it('refuses invalid files with a message naming the field at fault, and changes nothing', async () => {
    const agent = await services.agents.findAgentByName({ accountId, livemode: false, name: 'Acme support agent' });
    assert.ok(agent);
    const before = { versions: await services.agents.listVersions({ accountId, livemode: false, agentId: agent.id }), row: agent };
    const count = (await services.agents.listAgents({ accountId, livemode: false, page: { limit: 100 } })).data.length;

    await rejects(exampleFile('bad.yaml', (t) => t.replace('channels: [chat, sms]', 'channels: [chat, sms')), /^The agent file is not valid YAML: /);
    await rejects(exampleFile('unknown.yaml', (t) => `${t}\ncolour: blue\n`), /^Invalid agent config: .*\(colour\)/);
    await rejects(
      exampleFile('schema.yaml', (t) => t.replace('      type: object\n      properties:\n        order_number: { type: string, pattern: "^A[0-9]{6}$", description', '      type: string\n      properties:\n        order_number: { type: string, pattern: "^A[0-9]{6}$", description')),
      /^Invalid agent config at tools\.0\.parameters: parameters must be a JSON Schema with type: 'object'/,
    );
    await rejects(exampleFile('not-object.yaml', (t) => t.replace(/parameters:\n {6}type: object/, 'parameters: order number\n    x_parameters:\n      type: object')), /^Invalid agent config at tools\.0\.parameters: Invalid input: expected record, received string/);
    await rejects(exampleFile('approval.yaml', (t) => t.replace('requires_approval: [issue_refund]', 'requires_approval: [issue_refund, delete_account]')), /^Invalid agent config at guardrails\.requires_approval\.1: no tool named 'delete_account'/);
    await rejects(exampleFile('kb.yaml', (t) => t.replace(kbId, 'kb_missing')), /^Invalid agent config at knowledge_bases\.0\.id: no knowledge base 'kb_missing' in this account/);

    const agentAfter = await services.agents.findAgentByName({ accountId, livemode: false, name: 'Acme support agent' });
    assert.deepEqual(agentAfter, before.row);
    assert.deepEqual(await services.agents.listVersions({ accountId, livemode: false, agentId: agent.id }), before.versions);
    assert.equal((await services.agents.listAgents({ accountId, livemode: false, page: { limit: 100 } })).data.length, count);
  });
});

describe('npm run cli -- agents', () => {
  const run = (args: string[]) => runCliProcess(args, { schema: database.schema });


  it('applies a file and prints the agent; an invalid file prints the path at fault and exits 1', async () => {
    const ok = await run(['agents', 'apply', '--account', accountId, exampleFile('cli.yaml', (t) => t.replace('name: Acme support agent', 'name: CLI agent'))]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).version, 1);

    const bad = await run(['agents', 'apply', '--account', accountId, exampleFile('cli-bad.yaml', (t) => t.replace('timeout_ms: 5000', 'timeout_ms: 5'))]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Invalid agent config at tools\.0\.timeout_ms: /);

    const usage = await run(['agents', 'apply', '--account', accountId]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /agents apply --account <acct_id> <agent\.yaml>/);
  });
});
