import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import vm from 'node:vm';
import { gunzipSync } from 'node:zlib';
import express from 'express';
import { registerWidgetScriptRoutes } from '../../src/widget/widget-script.routes';
import { widgetScript } from '../../src/widget/widget-script';

let server: ReturnType<ReturnType<typeof express>['listen']>;
let base = '';
before(async () => {
  const app = express();
  registerWidgetScriptRoutes(app);
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

/** GET /widget.js without fetch's automatic decompression (node:http keeps the bytes as sent). */
async function get(headers: Record<string, string>) {
  const http = await import('node:http');
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    http.get(`${base}/widget.js`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('GET /widget.js', () => {
  it('serves the script gzipped to a browser that accepts it, cacheable, with the integrity hash of its bytes, under 35 kB', async () => {
    const res = await get({ 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/javascript/);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.match(String(res.headers['cache-control']), /public, max-age=\d+/);
    assert.match(String(res.headers.vary), /Accept-Encoding/);
    assert.equal(res.headers['access-control-allow-origin'], '*', 'loadable with integrity= and crossorigin=');
    assert.ok(res.body.length <= 35 * 1024, `${res.body.length} bytes gzipped`);
    const script = gunzipSync(res.body);
    assert.equal(`sha384-${createHash('sha384').update(script).digest('base64')}`, widgetScript().integrity);
    assert.doesNotThrow(() => new vm.Script(script.toString('utf8')), 'valid JavaScript');

    const plain = await get({});
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, script);
  });

  it('answers 304 to a browser holding the current version', async () => {
    const first = await get({});
    const again = await get({ 'if-none-match': String(first.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal((await get({ 'if-none-match': '"stale"' })).status, 200);
  });
});
