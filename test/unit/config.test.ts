import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { CONFIG_SLICES, loadConfig } from '../../src/config/env';

/** The env variables a slice reads (the keys of the object schema under its transform). */
function variablesOf(slice: z.ZodTypeAny): string[] {
  let schema: unknown = slice;
  for (let i = 0; i < 5 && schema && !(schema as { shape?: unknown }).shape; i++) schema = (schema as { in?: unknown }).in;
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  assert.ok(shape, 'a slice is an object schema with a transform');
  return Object.keys(shape);
}

describe('config slices', () => {
  it('each variable is read by exactly one slice', () => {
    const seen = new Map<string, number>();
    for (const slice of CONFIG_SLICES) for (const v of variablesOf(slice)) seen.set(v, (seen.get(v) ?? 0) + 1);
    assert.deepEqual([...seen].filter(([, n]) => n > 1), []);
    assert.ok(seen.has('SMS_CARRIERS') && seen.has('DATABASE_URL') && seen.has('EMAIL_FROM'));
  });

  it('combines the slices into one typed config, with the values derived across them', () => {
    const config = loadConfig({ DATA_DIR: '/srv/converse', HOST: '0.0.0.0', PORT: '8080', WEBHOOK_TIMEOUT_MS: '20000', SMTP_HOST: 'smtp.example', EMAIL_FROM: 'help@acme.example' });
    assert.equal(config.database.pgliteDir, '/srv/converse/pglite');
    assert.equal(config.http.publicBaseUrl, 'http://127.0.0.1:8080');
    assert.equal(config.webhookDispatch.leaseMs, 60_000);
    assert.equal(config.email.messageIdDomain, 'acme.example');
    assert.equal(config.email.smtp?.port, 587);
    assert.deepEqual(config.sms.carriers.map((c) => c.name), ['sandbox']);
    assert.equal(config.console.devSignIn, true);
  });

  it('reports the problems of every slice at once, and refuses production without SERVER_SECRET', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty', SMS_PRICE_CURRENCY: 'dollars', VERIFY_CODE_LENGTH: '2' }), (err: Error) => {
      assert.match(err.message, /^Invalid environment: /);
      for (const v of ['PORT', 'SMS_PRICE_CURRENCY', 'VERIFY_CODE_LENGTH']) assert.match(err.message, new RegExp(`${v}: `));
      return true;
    });
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /SERVER_SECRET/);
    assert.equal(loadConfig({ NODE_ENV: 'production', SERVER_SECRET: 's'.repeat(32) }).console.devSignIn, false);
  });

  it('reads EMBEDDINGS_FUSION as named weights, and refuses the old unnamed format and a name given twice', () => {
    const line = 'cos=-4.002,x=0.946,margin=39.128,cos_over_background=9.572,sentence_cos=24.812,sentence_over_background=46.87,bias=-2e1';
    assert.deepEqual(loadConfig({ EMBEDDINGS_FUSION: line }).embeddings.fusion, {
      cos: -4.002, x: 0.946, margin: 39.128, cos_over_background: 9.572, sentence_cos: 24.812, sentence_over_background: 46.87, bias: -20,
    });
    assert.throws(() => loadConfig({ EMBEDDINGS_FUSION: '10.463,1.663,35.828,6.926,42.995,0.153,0.583,-12.576' }), /EMBEDDINGS_FUSION: name=weight pairs/);
    assert.throws(() => loadConfig({ EMBEDDINGS_FUSION: 'cos=1,cos=2,bias=0' }), /EMBEDDINGS_FUSION: each name at most once/);
  });
});
