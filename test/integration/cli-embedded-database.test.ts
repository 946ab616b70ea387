import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { DATA_DIR_LOCK_FILE, DataDirInUseError, type DataDirHolder } from '../../src/db/data-dir-lock';
import { connectPglite } from '../../src/db/database';
import { freePort } from '../../src/platform/free-port';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

/**
 * One writer per embedded database (DESIGN §2): while the service holds PGlite, `npm run cli` goes
 * through it (its loopback operator endpoint runs the command on the service's own database), so a CLI
 * write is visible at once and a read is never of a stale copy; with the folder held and no service
 * answering, the CLI refuses and opens nothing.
 */
const repo = path.resolve(__dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'converse-cli-'));
const ctx = useTestStack({ label: __filename, worker: false, pgliteDir: path.join(dataDir, 'pglite') });
/** tsx's loader by its own path: the CLI may run from any folder (the operator's), where `tsx` does not resolve. */
const tsxLoader = pathToFileURL(path.join(repo, 'node_modules/tsx/dist/loader.mjs')).href;
const example = readFileSync(path.join(repo, 'examples/agents/support-agent.yaml'), 'utf8');
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** `npm run cli -- …` as a process of its own on `dir` (the embedded database: no DATABASE_URL). */
async function cli(args: string[], opts: { dataDir?: string; cwd?: string } = {}) {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', DATA_DIR: opts.dataDir ?? dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' };
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ['--import', tsxLoader, path.join(repo, 'src/cli.ts'), ...args], { cwd: opts.cwd ?? repo, env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const lockOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'pglite', DATA_DIR_LOCK_FILE), 'utf8')) as DataDirHolder;

/** A data folder whose embedded database is held by `holder` (written as the service writes it). */
function heldDataDir(holder: Partial<DataDirHolder>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'converse-cli-held-'));
  mkdirSync(path.join(dir, 'pglite'));
  const record: DataDirHolder = { pid: process.pid, holder: 'npm start', started_at: new Date().toISOString(), operator_url: null, token: 'x'.repeat(43), ...holder };
  writeFileSync(path.join(dir, 'pglite', DATA_DIR_LOCK_FILE), JSON.stringify(record), { mode: 0o600 });
  return dir;
}

describe('npm run cli while npm start holds the embedded database', () => {
  it('goes through the service: its writes are visible in the service at once, and reads see the service\'s data', async () => {
    const created = await cli(['accounts', 'create', '--name', 'Made by the CLI']);
    assert.equal(created.code, 0, created.stderr);
    const { account, test_key: key } = JSON.parse(created.stdout);
    const call = apiClient(ctx.stack.baseUrl, key);
    const me = await call('GET', '/v1/account');
    assert.equal(me.status, 200, 'the key the CLI created authenticates at once');
    assert.equal(me.body.id, account);

    // A knowledge base made through the API, named by an agent file the CLI applies (the file travels with
    // the command: the operator's relative path, read where the CLI runs).
    const kb = await call('POST', '/v1/knowledge_bases', { name: 'Help center' });
    const workDir = mkdtempSync(path.join(os.tmpdir(), 'converse-cli-work-'));
    writeFileSync(path.join(workDir, 'agent.yaml'), example.replace('kb_replace_with_your_knowledge_base_id', kb.body.id));
    const applied = await cli(['agents', 'apply', '--account', account, 'agent.yaml'], { cwd: workDir });
    rmSync(workDir, { recursive: true, force: true });
    assert.equal(applied.code, 0, applied.stderr);
    const agent = JSON.parse(applied.stdout);
    assert.equal(agent.status, 'live');
    assert.equal((await call('GET', `/v1/agents/${agent.id}`)).body.name, 'Acme support agent');

    const listed = await cli(['agents', 'list', '--account', account]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).map((a: { id: string }) => a.id), [agent.id]);

    // Errors and usage come back as the command printed them, with its exit code.
    const missing = await cli(['agents', 'publish', '--account', account, '--agent', 'agt_missing']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /agt_missing/);
    const usage = await cli(['agents']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^Usage:/);

    // The lock names the service and its loopback operator endpoint; only its owner may read it.
    const lock = lockOf(dataDir);
    assert.equal(lock.pid, process.pid);
    assert.match(lock.operator_url ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(statSync(path.join(dataDir, 'pglite', DATA_DIR_LOCK_FILE)).mode & 0o777, 0o600);
  });

  it('refuses, opening nothing, while the folder is held and no service answers; a stale lock is taken over', async () => {
    const deadService = heldDataDir({ operator_url: `http://127.0.0.1:${await freePort()}` });
    const starting = heldDataDir({ operator_url: null });
    try {
      const refused = await cli(['accounts', 'create', '--name', 'Lost?'], { dataDir: deadService });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`in use by process ${process.pid} \\(npm start\\), but its operator endpoint .* did not answer \\(ECONNREFUSED\\)\\. Nothing was done\\.`));
      const early = await cli(['agents', 'list', '--account', 'acct_x'], { dataDir: starting });
      assert.equal(early.code, 1);
      assert.match(early.stderr, /which is still starting\. Nothing was done\./);
      // A lock naming an endpoint off this machine gets neither the token nor the command.
      const elsewhere = heldDataDir({ operator_url: 'http://203.0.113.7:8080' });
      const away = await cli(['accounts', 'create', '--name', 'Exfiltrated?'], { dataDir: elsewhere });
      rmSync(elsewhere, { recursive: true, force: true });
      assert.equal(away.code, 1);
      assert.match(away.stderr, /names an operator endpoint that is not on this machine \(http:\/\/203\.0\.113\.7:8080\)\. Nothing was done\./);
      for (const dir of [deadService, starting]) assert.equal(existsSync(path.join(dir, 'pglite', 'PG_VERSION')), false, 'PGlite was never opened');

      // A lock left by a process that is gone (killed, crashed) holds nothing: the CLI opens the database itself.
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const stale = heldDataDir({ pid: Number(gone.stdout), operator_url: 'http://127.0.0.1:1' });
      try {
        const ran = await cli(['accounts', 'create', '--name', 'After a crash'], { dataDir: stale });
        assert.equal(ran.code, 0, ran.stderr);
        assert.match(JSON.parse(ran.stdout).account, /^acct_/);
        assert.equal(existsSync(path.join(stale, 'pglite', DATA_DIR_LOCK_FILE)), false, 'the CLI released the folder when it was done');
      } finally {
        rmSync(stale, { recursive: true, force: true });
      }
    } finally {
      rmSync(deadService, { recursive: true, force: true });
      rmSync(starting, { recursive: true, force: true });
    }
  });

  it('a second opener of the held folder (another npm start) is refused, naming the holder', async () => {
    await assert.rejects(connectPglite(path.join(dataDir, 'pglite'), { holder: 'npm start' }), (err: unknown) => {
      assert.ok(err instanceof DataDirInUseError);
      assert.match(err.message, new RegExp(`in use by process ${process.pid} \\(npm start\\)`));
      return true;
    });
  });

  it('the operator endpoint answers only its token, only on loopback, and is not part of the public API', async () => {
    const lock = lockOf(dataDir);
    const url = `${lock.operator_url}/operator/cli`;
    const post = (headers: Record<string, string>, body: unknown = { argv: ['accounts', 'create', '--name', 'Intruder'] }) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const before = await ctx.stack.database.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();

    const missing = await post({});
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error.code, 'operator_token_missing');
    assert.equal(missing.body.error.type, 'authentication_error');
    const wrong = await post({ authorization: `Bearer ${lock.token.slice(0, -1)}${lock.token.endsWith('A') ? 'B' : 'A'}` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'operator_token_invalid');
    const proxied = await post({ authorization: `Bearer ${lock.token}`, 'x-forwarded-for': '203.0.113.7' });
    assert.equal(proxied.status, 403);
    assert.equal(proxied.body.error.code, 'permission_denied');
    const after = await ctx.stack.database.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(after.n, before.n, 'nothing was written');

    const bad = await post({ authorization: `Bearer ${lock.token}` }, { argv: 'accounts create' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'argv');
    const ok = await post({ authorization: `Bearer ${lock.token}` }, { argv: ['agents'] });
    assert.deepEqual({ status: ok.status, exit_code: ok.body.exit_code }, { status: 200, exit_code: 2 });

    // Not on the API's port, not in its OpenAPI document.
    assert.equal((await fetch(`${ctx.stack.baseUrl}/operator/cli`, { method: 'POST' })).status, 404);
    const openapi = await (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`)).text();
    assert.doesNotMatch(openapi, /operator/);
  });
});
