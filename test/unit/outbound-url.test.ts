import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
});
