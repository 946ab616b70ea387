import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import { errorHandler } from '../../src/http/middleware/error-handler';
import { rateLimit } from '../../src/http/middleware/rate-limit';
import { silentLogger } from '../../src/observability/logger';

describe('rate limit', () => {
  it('answers 429 rate_limit_error with Retry-After once a key spends its burst, and refills', async () => {
    let now = 1_000_000;
    const app = express();
    app.use((req, _res, next) => {
      req.requestId = 'req_test';
      req.principal = { accountId: 'acct_1', keyId: String(req.headers['x-key']), mode: 'test' };
      next();
    });
    app.use(rateLimit({ perSecond: 5, now: () => now }));
    app.get('/x', (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorHandler(silentLogger()));
    const server = app.listen(0);
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/x`;
    try {
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await fetch(url, { headers: { 'x-key': 'a' } })).status);
      assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
      const limited = await fetch(url, { headers: { 'x-key': 'a' } });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '1');
      assert.equal(((await limited.json()) as any).error.type, 'rate_limit_error');
      assert.equal((await fetch(url, { headers: { 'x-key': 'b' } })).status, 200, 'another key has its own bucket');
      now += 1000;
      assert.equal((await fetch(url, { headers: { 'x-key': 'a' } })).status, 200, 'refilled after a second');
    } finally {
      server.close();
    }
  });
});
