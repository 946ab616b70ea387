import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import express from 'express';
import { writeSse } from '../../src/http/sse';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';

const ctx = useTestStack({ label: __filename, worker: false });

/** Every string schema on the request side of an operation (parameters and bodies), with its location. */
function requestSchemas(doc: any, type: 'string' | 'integer'): { where: string; schema: any }[] {
  const out: { where: string; schema: any }[] = [];
  const walk = (s: any, where: string) => {
    if (!s || typeof s !== 'object') return;
    if ([].concat(s.type).includes(type as never)) out.push({ where, schema: s });
    for (const [k, v] of Object.entries(s)) if (k !== 'propertyNames') walk(v, `${where}/${k}`);
  };
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const p of op.parameters ?? []) walk(p.schema, `${method} ${path} ${p.name}`);
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) walk(media.schema, `${method} ${path} ${type}`);
    }
  }
  return out;
}

describe('the OpenAPI document says what validation enforces', () => {
  it('marks bodies required, states patterns for phone numbers, senders and URLs, one shape per source type', async () => {
    const doc = (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`).then((r) => r.json())) as any;
    const body = (path: string, type = 'application/json') => doc.paths[path].post.requestBody;
    for (const path of ['/v1/messages', '/v1/verifications', '/v1/webhook_endpoints', '/v1/knowledge_bases', '/v1/verifications/{id}/check', '/v1/knowledge_bases/{id}/sources']) {
      assert.equal(body(path).required, true, path);
    }
    assert.equal(body('/v1/account/rotate_signing_secret').required, false, 'an all-optional body is not required');
    assert.equal(body('/v1/files').required, true);
    assert.equal(body('/v1/files').content['multipart/form-data'].schema.properties.file.format, 'binary');

    const message = body('/v1/messages').content['application/json'].schema.properties;
    assert.equal(message.to.pattern, '^\\+[1-9]\\d{6,14}$');
    assert.equal(message.from.anyOf.length, 3);
    assert.match(message.status_callback.pattern, /^\^https\?:/);
    assert.equal(message.body.minLength, 1);
    assert.match(body('/v1/webhook_endpoints').content['application/json'].schema.properties.url.pattern, /^\^https\?:/);
    // A batch recipient's template variables: the key rule is in the document, not only in the code.
    const variables = body('/v1/message_batches').content['application/json'].schema.properties.recipients.items.properties.variables;
    assert.equal(variables.propertyNames?.pattern, '^[A-Za-z_][A-Za-z0-9_]*$', JSON.stringify(variables));
    assert.equal(variables.maxProperties, 50);
    // Limits the API checks are the ones the document states (a fuzzer's schema-valid request is not refused 400).
    const baseMetadata = body('/v1/knowledge_bases').content['application/json'].schema.properties.metadata;
    assert.equal(baseMetadata.maxProperties, 50, JSON.stringify(baseMetadata));
    assert.equal(baseMetadata.propertyNames?.maxLength, 40);
    const source = body('/v1/knowledge_bases/{id}/sources').content['application/json'].schema;
    assert.deepEqual(source.oneOf.map((o: any) => o.properties.type.enum[0]).sort(), ['api', 'document', 'record', 'url']);
    for (const { where, schema } of requestSchemas(doc, 'string')) {
      if (schema.enum || schema.format || schema.const) continue;
      assert.ok(schema.pattern, `${where} has no pattern (at least: no NUL)`);
    }
    // zod refuses integers beyond the safe range (a fuzzer's 2^127 `version` was 400): the document says so.
    const integers = requestSchemas(doc, 'integer');
    assert.ok(integers.some((i) => i.where.includes('/v1/evaluations')), 'an evaluation version is an integer');
    for (const { where, schema } of integers) {
      assert.ok(Number.isSafeInteger(schema.maximum ?? schema.exclusiveMaximum), `${where} has no safe upper bound`);
      assert.ok(Number.isSafeInteger(schema.minimum ?? schema.exclusiveMinimum), `${where} has no safe lower bound`);
    }
  });

  it('lists text/event-stream where the API streams: ?stream=true on posting a message (200), and a run\'s events (LOW, Schemathesis)', async () => {
    const doc = (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`).then((r) => r.json())) as any;
    const post = doc.paths['/v1/conversations/{id}/messages'].post;
    assert.ok(post.responses['201'].content['application/json'], 'the message as JSON (201)');
    assert.ok(post.responses['200'].content['text/event-stream'], 'the run as server-sent events (200)');
    assert.ok(post.parameters.some((p: any) => p.name === 'stream' && p.in === 'query'));
    assert.ok(doc.paths['/v1/runs/{id}/events'].get.responses['200'].content['text/event-stream']);
  });

  it('describes each server-sent event (id, event, data), and the events written validate against it (issue 28 #16, ST108)', async () => {
    const doc = (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`).then((r) => r.json())) as any;
    const schemas = [
      doc.paths['/v1/runs/{id}/events'].get.responses['200'].content['text/event-stream'].schema,
      doc.paths['/v1/conversations/{id}/messages'].post.responses['200'].content['text/event-stream'].schema,
    ];
    for (const schema of schemas) {
      // Not "a string": the per-event schema Schemathesis checks each parsed event against.
      assert.equal(schema.type, 'object');
      assert.deepEqual(schema.required, ['id', 'event', 'data']);
      assert.equal(schema.properties.data.contentMediaType, 'application/json');
    }
    // The stream as writeSse writes it, parsed field by field as an SSE client does, fits the schema.
    const app = express().get('/', (req, res) => writeSse(req, res, async function* () {
      yield { id: 1, event: 'run.started', data: { run_id: 'run_1' } };
      yield { id: 2, event: 'reply.delta', data: { text: 'line one\nline two' } };
    }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const text = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).then((r) => r.text());
      const events = text.split('\n\n').filter((block) => block.trim() && !block.startsWith(':')).map((block) =>
        Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)])));
      assert.equal(events.length, 2);
      const validate = new Ajv2020({ strict: false }).compile(schemas[0]);
      for (const e of events) {
        assert.ok(validate(e), `${JSON.stringify(e)}: ${JSON.stringify(validate.errors)}`);
        assert.equal(typeof JSON.parse(e.data), 'object');
      }
    } finally {
      server.close();
    }
  });

  it('answers 405 with Allow for a method a documented path does not have, 404 for an unknown path', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    for (const [method, path, allow] of [
      ['PUT', '/v1/messages', ['GET', 'HEAD', 'POST']],
      ['PUT', '/v1/account', ['GET', 'HEAD', 'POST']],
      ['PATCH', '/v1/webhook_endpoints/we_123', ['DELETE', 'GET', 'HEAD', 'POST']],
      ['DELETE', '/v1/messages/msg_1', ['GET', 'HEAD']],
    ] as const) {
      const res = await fetch(`${ctx.stack.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}` } });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.deepEqual(res.headers.get('allow')!.split(', ').filter((m) => m !== 'OPTIONS').sort(), [...allow], `${method} ${path}`);
      assert.equal(((await res.json()) as any).error.code, 'method_not_allowed');
    }
    assert.equal((await fetch(`${ctx.stack.baseUrl}/v1/nothing_here`, { method: 'PUT', headers: { authorization: `Bearer ${apiKey}` } })).status, 404);
  });

  it('answers values of the documented shape that break an unstated rule with 422, not 400', async () => {
    const call = apiClient(ctx.stack.baseUrl, (await ctx.stack.newAccount()).apiKey);
    const both = await call('GET', '/v1/messages?starting_after=msg_a&ending_before=msg_b');
    assert.equal(both.status, 422);
    assert.equal(both.body.error.code, 'parameter_unprocessable');
    const unknown = await call('GET', '/v1/messages?starting_after=msg_nope');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.param, 'starting_after');
    const plan = await call('POST', '/v1/verifications', { to: '+15555555555', channel: 'sms' });
    assert.equal(plan.status, 422);
    assert.equal(plan.body.error.param, 'to');
    const url = await call('POST', '/v1/webhook_endpoints', { url: 'https://exa mple', events: ['*'] });
    assert.equal(url.status, 400, 'a space does not match the documented URL pattern');
    const unparsable = await call('POST', '/v1/webhook_endpoints', { url: 'https://[::1/', events: ['*'] });
    assert.equal(unparsable.status, 422);
  });
});
