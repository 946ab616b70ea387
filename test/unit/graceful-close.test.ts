import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { closeGracefully } from '../../src/http/graceful-close';

async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('graceful close of the HTTP server', () => {
  it('lets a request in flight finish, then closes', async () => {
    const { server, url } = await serve((_req, res) => setTimeout(() => res.end('done'), 300));
    const inFlight = fetch(url).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await closeGracefully(server, 5000);
    assert.equal(await inFlight, 'done');
    assert.ok(Date.now() - started < 2000, 'did not wait for the grace period');
    await assert.rejects(fetch(url), 'no new connections');
  });

  it('cuts a request that outlives the grace period', async () => {
    const { server, url } = await serve(() => undefined);
    const inFlight = fetch(url).then(() => 'answered', () => 'cut');
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await closeGracefully(server, 300);
    assert.equal(await inFlight, 'cut');
    assert.ok(Date.now() - started < 2000);
  });
});
