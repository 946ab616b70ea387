import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAgentsTestCommand } from '../../src/cli/agents.commands';
import { waitForSource } from './knowledge-helpers';
import { runCliProcess } from '../support/cli-process';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

/**
 * The example agent kept as code with its ten tests, against the example help center
 * (examples/knowledge): `agents apply` keeps the tests, `agents test` applies a draft, evaluates it on
 * the running service and exits 1 on a failure.
 */
const ctx = useTestStack({ label: __filename, temporal: 'dev-server' });
const repo = path.resolve(__dirname, '../..');
const example = readFileSync(path.join(repo, 'examples/agents/support-agent.yaml'), 'utf8');
const helpCenter = JSON.parse(readFileSync(path.join(repo, 'examples/knowledge/acme-help-center.json'), 'utf8'));
let dir: string;
let accountId: string;
let kbId: string;


function exampleFile(name: string, edit: (text: string) => string = (t) => t): string {
  const file = path.join(dir, name);
  writeFileSync(file, edit(example.replace('kb_replace_with_your_knowledge_base_id', kbId)));
  return file;
}

const cli = (args: string[]) =>
  runCliProcess(args, { schema: ctx.stack.database.schema, env: { TEMPORAL_ADDRESS: ctx.env.address, TEMPORAL_TASK_QUEUE: ctx.stack.config.temporal.taskQueue } });

describe('the example agent kept as code, with its tests', () => {
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agents-test-'));
    const account = await ctx.stack.newAccount('Acme');
    accountId = account.accountId;
    const call = apiClient(ctx.stack.baseUrl, account.apiKey);
    const kb = await call('POST', '/v1/knowledge_bases', { name: 'Acme help center' });
    const src = await call('POST', `/v1/knowledge_bases/${kb.body.id}/sources`, helpCenter);
    assert.equal(src.status, 202, JSON.stringify(src.body));
    await waitForSource(call, kb.body.id, src.body.id, 'ready');
    kbId = kb.body.id;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('passes its ten tests against the example help center (tool calls answered from the declared results) and keeps them on apply', async (t) => {
    const { services } = ctx.stack;
    const { output, passed } = await runAgentsTestCommand(services, { account: accountId, file: exampleFile('support-agent.yaml'), pollMs: 100 });
    assert.equal(passed, true, output);
    t.diagnostic(output);
    assert.equal(output.match(/ pass /g)?.length, 10, output);
    assert.match(output, /10 of 10 passed/);

    const agent = await services.agents.findAgentByName({ accountId, livemode: false, name: 'Acme support agent' });
    assert.ok(agent);
    assert.equal(agent.live_version, null, 'agents test never publishes');
    const cases = await services.testCases.listTestCases({ accountId, livemode: false, agentId: agent.id, page: { limit: 100 } });
    assert.equal(cases.data.length, 10);

    // Applying the file without its last test deletes that case and keeps the others (matched by name).
    const { agentFileTests } = services.testCases;
    await services.agents.applyAgentFile({ accountId, livemode: false, text: readFileSync(exampleFile('nine.yaml', (t) => t.slice(0, t.indexOf('  - name: Card numbers')))).toString(), tests: agentFileTests });
    const kept = await services.testCases.listTestCases({ accountId, livemode: false, agentId: agent.id, page: { limit: 100 } });
    assert.deepEqual(kept.data.map((c) => c.id).sort(), cases.data.filter((c) => c.name !== 'Card numbers are never stored').map((c) => c.id).sort());
  });

  it('the CLI exits 0 when every test passes and 1 with the failure in its table otherwise; a bad test changes nothing', async () => {
    const ok = await cli(['agents', 'test', '--account', accountId, exampleFile('cli-ok.yaml', (t) => t.replace('name: Acme support agent', 'name: CLI agent'))]);
    assert.equal(ok.code, 0, ok.stderr + ok.stdout);
    assert.match(ok.stdout, /10 of 10 passed/);

    const failing = await cli(['agents', 'test', '--account', accountId, exampleFile('cli-fail.yaml', (t) => t.replace('name: Acme support agent', 'name: CLI agent').replace('contains_one_of: [3 to 5 business days]', 'contains_one_of: [two weeks]'))]);
    assert.equal(failing.code, 1, failing.stderr);
    assert.match(failing.stdout, /Shipping time, cited\s+FAIL .*reply\.contains_one_of/);
    assert.match(failing.stdout, /9 of 10 passed/);

    const { services } = ctx.stack;
    const agent = (await services.agents.findAgentByName({ accountId, livemode: false, name: 'CLI agent' }))!;
    const casesBefore = await services.testCases.listTestCases({ accountId, livemode: false, agentId: agent.id, page: { limit: 100 } });
    const bad = await cli(['agents', 'test', '--account', accountId, exampleFile('cli-bad.yaml', (t) => t.replace('name: Acme support agent', 'name: CLI agent').replace('max_sms_segments: 3', 'max_sms_segments: 0').replace('instructions: |', 'instructions: |\n  Changed.'))]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Invalid test case at tests\.1\.turns\.0\.expect\.reply\.max_sms_segments/);
    const casesAfter = await services.testCases.listTestCases({ accountId, livemode: false, agentId: agent.id, page: { limit: 100 } });
    assert.deepEqual(casesAfter, casesBefore);
    const { draft } = await services.agents.getDraft({ accountId, livemode: false, agentId: agent.id });
    assert.doesNotMatch(draft.instructions, /Changed/);
  });
});
