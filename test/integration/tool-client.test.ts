import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { callToolEndpoint, type CallToolEndpointInput, TOOL_RESPONSE_MAX_BYTES } from '../../src/agents/tools/tool-client';
import { verifySignatureHeader } from '../../src/domain/signature';

const secret = 'whsec_tool_test_secret';

interface Seen {
  signatureValid: boolean;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, index: number) => void;

/** A tool endpoint on loopback that checks every request's Service-Signature, then answers via `handler`. */
async function startToolServer() {
  const seen: Seen[] = [];
  let handler: Handler = (_req, res) => json(res, 200, {});
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const index = seen.push({
        signatureValid: verifySignatureHeader(secret, raw, String(req.headers['service-signature'] ?? '')),
        body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        contentType: req.headers['content-type'],
      }) - 1;
      handler(req, res, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools/lookup`,
    seen,
    handle(h: Handler) {
      handler = h;
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('callToolEndpoint (tool endpoint contract)', () => {
  let server: Awaited<ReturnType<typeof startToolServer>>;
  const call = (overrides: Partial<CallToolEndpointInput> = {}) =>
    callToolEndpoint({
      endpoint: server.url,
      tool: 'lookup_order',
      arguments: { order_id: 'A-1001', include: ['items'] },
      conversationId: 'conv_123',
      runId: 'run_456',
      signingSecret: secret,
      timeoutMs: 2000,
      idempotent: false,
      allowPrivate: true,
      requireHttps: false,
      ...overrides,
    });

  before(async () => {
    server = await startToolServer();
  });
  after(() => server.close());
  beforeEach(() => {
    server.seen.length = 0;
  });

  it('sends a signed POST with the contract body and returns a 200 JSON body as the result', async () => {
    server.handle((_req, res) => json(res, 200, { status: 'shipped', eta: '2026-12-01' }));
    const out = await call({ idempotencyKey: '3' });
    assert.equal(out.status, 'ok');
    assert.deepEqual(out.status === 'ok' && out.result, { status: 'shipped', eta: '2026-12-01' });
    assert.equal(out.status === 'ok' && out.httpStatus, 200);
    assert.ok(out.latencyMs >= 0);
    assert.equal(server.seen.length, 1);
    const [req] = server.seen;
    assert.equal(req!.signatureValid, true);
    assert.equal(req!.contentType, 'application/json');
    assert.deepEqual(req!.body, {
      tool: 'lookup_order',
      arguments: { order_id: 'A-1001', include: ['items'] },
      conversation_id: 'conv_123',
      run_id: 'run_456',
    });
    assert.equal(req!.idempotencyKey, 'run_456:3');
  });

  it('derives a stable Idempotency-Key from the run, tool and arguments when none is given', async () => {
    server.handle((_req, res) => json(res, 200, {}));
    await call();
    await call();
    await call({ arguments: { order_id: 'A-1002' } });
    const keys = server.seen.map((s) => s.idempotencyKey);
    assert.match(keys[0]!, /^run_456:[0-9a-f]{24}$/);
    assert.equal(keys[0], keys[1]);
    assert.notEqual(keys[0], keys[2]);
  });

  it('maps a 200 body carrying {error: {code, message}} to an error', async () => {
    server.handle((_req, res) => json(res, 200, { error: { code: 'order_not_found', message: 'No order A-1001' } }));
    const out = await call();
    assert.deepEqual(out.status === 'error' && out.error, { code: 'order_not_found', message: 'No order A-1001' });
    assert.equal(out.status === 'error' && out.httpStatus, 200);
  });

  it('maps a non-2xx status to http_<status>, with the body error message when there is one', async () => {
    server.handle((_req, res) => json(res, 500, { error: { code: 'boom', message: 'Database unavailable' } }));
    const out = await call();
    assert.deepEqual(out.status === 'error' && out.error, { code: 'http_500', message: 'Database unavailable' });
    assert.equal(out.status === 'error' && out.httpStatus, 500);

    server.handle((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    });
    const notFound = await call();
    assert.equal(notFound.status === 'error' && notFound.error.code, 'http_404');
    assert.match(notFound.status === 'error' ? notFound.error.message : '', /404/);
  });

  it('maps 202 {status: pending} to pending', async () => {
    server.handle((_req, res) => json(res, 202, { status: 'pending' }));
    const out = await call();
    assert.equal(out.status, 'pending');
  });

  it('maps a non-JSON 2xx to invalid_response and an oversized body to response_too_large', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>ok</html>');
    });
    const html = await call();
    assert.equal(html.status === 'error' && html.error.code, 'invalid_response');

    server.handle((_req, res) => json(res, 200, { blob: 'x'.repeat(TOOL_RESPONSE_MAX_BYTES) }));
    const big = await call();
    assert.equal(big.status === 'error' && big.error.code, 'response_too_large');
  });

  it('marks a call with no answer within timeoutMs as timed_out, without retrying it', async () => {
    server.handle((_req, res) => {
      setTimeout(() => !res.destroyed && json(res, 200, { late: true }), 1000).unref();
    });
    const started = Date.now();
    const out = await call({ timeoutMs: 200, idempotent: true });
    assert.equal(out.status, 'timed_out');
    assert.ok(Date.now() - started < 900, 'returned at the deadline');
    await sleep(100);
    assert.equal(server.seen.length, 1);
  });

  it('retries an idempotent tool once after the connection is destroyed mid-request', async () => {
    server.handle((req, res, index) => (index === 0 ? req.socket.destroy() : json(res, 200, { ok: true })));
    const out = await call({ idempotent: true, idempotencyKey: '1' });
    assert.equal(out.status, 'ok');
    assert.deepEqual(out.status === 'ok' && out.result, { ok: true });
    assert.equal(server.seen.length, 2);
    assert.ok(server.seen.every((s) => s.signatureValid));
    assert.deepEqual(server.seen.map((s) => s.idempotencyKey), ['run_456:1', 'run_456:1']);
  });

  it('retries an idempotent tool once when the response is dropped mid-body, and gives up after that', async () => {
    const dropMidBody: Handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 20);
    };
    server.handle((req, res, index) => (index === 0 ? dropMidBody(req, res, index) : json(res, 200, { second: true })));
    const out = await call({ idempotent: true });
    assert.deepEqual(out.status === 'ok' && out.result, { second: true });
    assert.equal(server.seen.length, 2);

    server.seen.length = 0;
    server.handle(dropMidBody);
    const failed = await call({ idempotent: true });
    assert.equal(failed.status === 'error' && failed.error.code, 'network_error');
    assert.equal(server.seen.length, 2);
  });

  it('never resends a non-idempotent call after a network error', async () => {
    server.handle((req) => req.socket.destroy());
    const out = await call({ idempotent: false });
    assert.equal(out.status, 'error');
    assert.equal(out.status === 'error' && out.error.code, 'network_error');
    assert.equal(out.status === 'error' && out.httpStatus, undefined);
    await sleep(100);
    assert.equal(server.seen.length, 1);
  });

  it('refuses an endpoint the outbound policy forbids without sending anything', async () => {
    const privateOut = await call({ allowPrivate: false });
    assert.equal(privateOut.status === 'error' && privateOut.error.code, 'endpoint_not_allowed');
    const httpLive = await call({ requireHttps: true });
    assert.equal(httpLive.status === 'error' && httpLive.error.code, 'endpoint_not_allowed');
    const garbage = await call({ endpoint: 'not a url' });
    assert.equal(garbage.status === 'error' && garbage.error.code, 'invalid_endpoint');
    assert.equal(server.seen.length, 0);
  });
});
