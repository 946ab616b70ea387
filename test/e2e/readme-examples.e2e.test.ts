import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/platform/free-port';
import { TEST_DATABASE_URL } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { pollUntil } from '../support/poll';
import { readmeSections, type ReadmeBlock } from '../support/readme-blocks';

/**
 * README.md runs as written. Every ```sh / ```bash block is run, in order, against the service started as
 * `npm start` starts it (src/main.ts: API, worker and console in one process, the Temporal dev server it
 * starts) in a folder laid out like a fresh clone (its own `data/`), on this file's schema of the real
 * PostgreSQL server (DATABASE_URL for the service and for the CLI the examples call). The blocks of one
 * README section run in one bash (`set -euo pipefail`: a variable used and defined nowhere fails), each
 * must exit 0 and print no API error object.
 *
 * What differs from a reader's machine: ports (the README's 127.0.0.1:3000 and the webhook receiver's
 * 127.0.0.1:4242 are replaced by free ones, since test files run side by side), lexical retrieval
 * (EMBEDDINGS=off: the local model would take most of the time budget; the examples' answers do not need
 * it) and ALLOW_PRIVATE_NETWORK=true, which the README's webhook example asks the reader to set.
 * Markers (test/support/readme-blocks.ts): `<!-- readme-test: skip (why) -->` before a block that is not
 * meant to run here (npm start itself, benchmarks, configuration, a request to the reader's own server),
 * `<!-- readme-test: background -->` before one that keeps running (a receiver), started and left running
 * until the end once it has printed its first line.
 */
const repo = path.resolve(__dirname, '../..');
/** What a fresh clone holds that the examples use (linked, not copied); `data/` is the clone's own. */
const CLONE_ENTRIES = ['package.json', 'package-lock.json', 'tsconfig.json', 'node_modules', 'src', 'workflows', 'activities', 'examples', 'scripts', '.tools'];

let database: TestDatabase;
let clone: string;
let service: ChildProcess | undefined;
let serviceOutput = '';
const background: ChildProcess[] = [];
let env: NodeJS.ProcessEnv;
/** README address → the one this run uses. */
let addresses: Map<string, string>;

const localize = (code: string) => [...addresses].reduce((text, [from, to]) => text.split(from).join(to), code);

before(async () => {
  database = await createTestDatabase(__filename);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${database.schema}`);
  clone = mkdtempSync(path.join(os.tmpdir(), 'converse-readme-'));
  for (const entry of CLONE_ENTRIES) symlinkSync(path.join(repo, entry), path.join(clone, entry));
  mkdirSync(path.join(clone, 'data'));
  const [port, grpc, ui, receiver] = [await freePort(), await freePort(), await freePort(), await freePort()];
  addresses = new Map([
    ['127.0.0.1:3000', `127.0.0.1:${port}`],
    ['127.0.0.1:4242', `127.0.0.1:${receiver}`],
  ]);
  env = {
    ...readerEnvironment(process.env, clone),
    DATABASE_URL: url.toString(),
    TEMPORAL_ADDRESS: '',
    PORT: String(port),
    TEMPORAL_GRPC_PORT: String(grpc),
    TEMPORAL_UI_PORT: String(ui),
    TEMPORAL_TASK_QUEUE: 'converse-readme',
    EMBEDDINGS: 'off',
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'warn',
  };
  service = spawn(process.execPath, ['--import', 'tsx', path.join(clone, 'src/main.ts')], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout!.on('data', (b) => (serviceOutput += b));
  service.stderr!.on('data', (b) => (serviceOutput += b));
  await pollUntil('the start banner', async () => (serviceOutput.includes('Converse is running') ? true : undefined), {
    timeoutMs: 120_000,
    intervalMs: 250,
    detail: () => `\n${serviceOutput.slice(-3000)}`,
  });
});

after(async () => {
  for (const child of background) stopGroup(child);
  if (service && service.exitCode === null) {
    const exited = new Promise((r) => service!.once('exit', r));
    service.kill('SIGINT');
    await exited;
  }
  if (clone) rmSync(clone, { recursive: true, force: true });
  await database?.destroy();
});

function stopGroup(child: ChildProcess) {
  if (child.exitCode === null && child.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/**
 * The environment a reader's second terminal has: this process's, without what would make a shell or curl
 * behave unlike a reader's (a BASH_ENV or exported shell functions run before every block, a curl config
 * file, proxies for loopback addresses). A reader's examples talk to 127.0.0.1 directly.
 */
function readerEnvironment(parent: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  const dropped = /^(BASH_ENV|ENV|BASH_FUNC_.*|CDPATH|GLOBIGNORE|SHELLOPTS|BASHOPTS|CURL_HOME|XDG_CONFIG_HOME|(http|https|all|ftp)_proxy|(HTTP|HTTPS|ALL|FTP)_PROXY)$/;
  const kept = Object.fromEntries(Object.entries(parent).filter(([name]) => !dropped.test(name)));
  const config = path.join(home, '.reader-config');
  mkdirSync(config, { recursive: true });
  // An empty curl config where curl looks first, so a config in HOME is not read either.
  for (const file of ['.curlrc', 'curlrc']) writeFileSync(path.join(config, file), '');
  return { ...kept, CURL_HOME: config, XDG_CONFIG_HOME: config, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };
}

/** Starts a background block in its own process group; resolves once it has printed a line. */
async function startBackground(block: ReadmeBlock): Promise<void> {
  const child = spawn('bash', ['-c', localize(block.code)], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  background.push(child);
  let output = '';
  child.stdout!.on('data', (b) => (output += b));
  child.stderr!.on('data', (b) => (output += b));
  await pollUntil(`the background block at README.md:${block.line} to print its first line`, async () => (output.includes('\n') ? true : child.exitCode !== null ? true : undefined), {
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  assert.equal(child.exitCode, null, `the background block at README.md:${block.line} exited: ${output}`);
}

const BLOCK_MARK = '::readme-block::';
/** An API error object in a response body (`{"error":{"type":…`), printed by curl. */
const ERROR_OBJECT = /"error"\s*:\s*\{\s*"(type|code|message)"/;

/**
 * Runs a section's blocks in one bash; answers each block's output, the exit code, and the trace of the
 * commands bash ran (`set -x` to a file of its own, so the outputs stay the reader's), which a failure shows.
 */
async function runSection(blocks: ReadmeBlock[]): Promise<{ code: number | null; outputs: string[]; all: string; trace: string }> {
  const traceFile = path.join(clone, `.trace-${blocks[0]!.line}`);
  const script = [
    'set -euo pipefail',
    `exec 9>'${traceFile}'; BASH_XTRACEFD=9; set -x`,
    ...blocks.map((b) => `printf '\\n${BLOCK_MARK}\\n'\n${localize(b.code)}`),
  ].join('\n');
  const child = spawn('bash', ['-c', script], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let all = '';
  child.stdout!.on('data', (b) => (all += b));
  child.stderr!.on('data', (b) => (all += b));
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  const trace = readFileSync(traceFile, 'utf8').split('\n').slice(-30).join('\n');
  return { code, outputs: all.split(`${BLOCK_MARK}\n`).slice(1), all, trace };
}

describe('README.md examples', () => {
  const sections = readmeSections(readFileSync(path.join(repo, 'README.md'), 'utf8'));

  it('marks every block the test does not run, and runs at least the chat, webhook, SMS, voice, email, agents and evaluations examples', () => {
    const run = sections.flatMap((s) => s.blocks.filter((b) => b.mode === 'run').map(() => s.heading));
    for (const heading of ['Two commands', 'First minutes', 'SMS carriers', 'Voice calls (Twilio)', 'Email', 'Agents', 'Evaluations']) {
      assert.ok(run.includes(heading), `no runnable example under "${heading}"`);
    }
  });

  for (const section of sections) {
    if (!section.blocks.some((b) => b.mode !== 'skip')) continue;
    it(`"${section.heading}" runs as written`, { timeout: 180_000 }, async () => {
      for (const block of section.blocks.filter((b) => b.mode === 'background')) await startBackground(block);
      const blocks = section.blocks.filter((b) => b.mode === 'run');
      if (blocks.length === 0) return;
      const { code, outputs, all, trace } = await runSection(blocks);
      const failed = blocks[Math.max(0, outputs.length - 1)]!;
      assert.equal(code, 0, `README.md:${failed.line} exited ${code}:\n${all.slice(-4000)}\n-- the last commands bash ran:\n${trace}`);
      blocks.forEach((block, i) => {
        const output = outputs[i] ?? '';
        assert.doesNotMatch(output, ERROR_OBJECT, `README.md:${block.line} printed an error object:\n${output.slice(-4000)}`);
      });
    });
  }

  it('leaves no webhook endpoint behind and no delivery failing or retrying (an example endpoint is reachable, and deleted when done)', async () => {
    const endpoints = await database.db.selectFrom('webhook_endpoints').select(['id', 'url', 'events']).where('deleted_at', 'is', null).execute();
    assert.deepEqual(endpoints, [], 'an example left a webhook endpoint subscribed');
    const unsettled = () =>
      database.db.selectFrom('webhook_deliveries').select(['id', 'url', 'status', 'attempt_count', 'last_error']).where('status', 'not in', ['delivered', 'cancelled']).execute();
    const settled = await pollUntil('every delivery to be delivered or cancelled', async () => ((await unsettled()).length === 0 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 250,
    }).catch(() => false);
    assert.ok(settled, `deliveries still failing or retrying: ${JSON.stringify(await unsettled())}`);
  });
});
