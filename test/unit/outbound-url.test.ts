import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { AppError } from '../../src/domain/errors';
import { assertOutboundUrl, isPrivateAddress, OutboundNetworkError, sendOutbound } from '../../src/platform/outbound-http';

const code = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
};

describe('outbound URL policy', () => {
  it('refuses private, loopback and link-local targets unless private network access is allowed', () => {
    const closed = { allowPrivate: false, requireHttps: false };
    for (const url of [
      'http://127.0.0.1/hook', 'http://localhost:8080/x', 'http://10.1.2.3/', 'http://172.20.0.5/', 'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data', 'http://[::1]/', 'http://[fd00::1]/', 'http://0.0.0.0/', 'http://[::ffff:127.0.0.1]/',
    ]) {
      assert.equal(code(() => assertOutboundUrl(url, closed)), 'url_not_allowed', url);
      assert.equal(code(() => assertOutboundUrl(url, { allowPrivate: true, requireHttps: false })), 'accepted', url);
    }
    assert.equal(code(() => assertOutboundUrl('https://example.com/hook', closed)), 'accepted');
    assert.equal(code(() => assertOutboundUrl('http://8.8.8.8/hook', closed)), 'accepted');
  });

  it('requires https for live mode and rejects non-URLs, other schemes and credentials', () => {
    const live = { allowPrivate: false, requireHttps: true };
    assert.equal(code(() => assertOutboundUrl('http://example.com/hook', live)), 'url_not_allowed');
    assert.equal(code(() => assertOutboundUrl('https://example.com/hook', live)), 'accepted');
    assert.equal(code(() => assertOutboundUrl('not a url', live)), 'parameter_invalid');
    assert.equal(code(() => assertOutboundUrl('ftp://example.com/x', live)), 'parameter_invalid');
    assert.equal(code(() => assertOutboundUrl('https://user:pw@example.com/x', live)), 'parameter_invalid');
  });

  it('classifies addresses', () => {
    assert.equal(isPrivateAddress('127.0.0.53'), true);
    assert.equal(isPrivateAddress('100.64.1.1'), true);
    assert.equal(isPrivateAddress('93.184.216.34'), false);
    assert.equal(isPrivateAddress('2606:4700::1111'), false);
    assert.equal(isPrivateAddress('example.com'), false);
  });

  it('refuses at send time to connect to a private address, even when the URL passed validation earlier', async () => {
    const server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
        await assert.rejects(sendOutbound({ url, timeoutMs: 1000, allowPrivate: false }), (e: unknown) => e instanceof OutboundNetworkError && e.kind === 'blocked', url);
      }
      const allowed = await sendOutbound({ url: `http://localhost:${port}/`, method: 'GET', timeoutMs: 1000, allowPrivate: true });
      assert.equal(allowed.body, 'reached');
    } finally {
      server.close();
    }
  });

  it('sends again on a new connection when a kept-alive connection was closed by the receiver, where asked to', async () => {
    // Answers the first request of each connection (keep-alive) and resets the connection at the second,
    // as a receiver does that closes an idle connection just as a request is sent on it.
    const connections: net.Socket[] = [];
    let requests = 0;
    const server = net.createServer((socket) => {
      connections.push(socket);
      let seen = 0;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        requests++;
        if (++seen > 1) return socket.resetAndDestroy();
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const post = (retryStaleConnection: boolean) => sendOutbound({ url, body: '{}', timeoutMs: 2000, allowPrivate: true, retryStaleConnection });
    try {
      assert.equal((await post(true)).status, 200);
      assert.equal((await post(true)).status, 200, 'the reset pooled connection is replaced by a new one');
      assert.equal(requests, 3);
      assert.equal(connections.length, 2);
      await post(false);
      await assert.rejects(post(false), (e: unknown) => e instanceof OutboundNetworkError && e.kind === 'network');
    } finally {
      for (const c of connections) c.destroy();
      server.close();
    }
  });
});
