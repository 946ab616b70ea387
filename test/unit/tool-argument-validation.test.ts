import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateToolArguments, validateToolSchema } from '../../src/agents/guardrails/tool-argument-validation';

const lookupOrder = {
  type: 'object',
  properties: {
    order_id: { type: 'string', pattern: '^[A-Z]-\\d{4}$' },
    email: { type: 'string', format: 'email' },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } }, required: ['sku'] } },
    channel: { enum: ['sms', 'email'] },
  },
  required: ['order_id'],
  additionalProperties: false,
};

const check = (args: unknown, schema: Record<string, unknown> = lookupOrder) => validateToolArguments({ schema, arguments: args });

describe('validateToolArguments', () => {
  it('accepts arguments that satisfy the schema', () => {
    assert.deepEqual(check({ order_id: 'A-1001' }), { ok: true });
    assert.deepEqual(check({ order_id: 'A-1001', email: 'jane@example.com', items: [{ sku: 'X', qty: 2 }], channel: 'sms' }), { ok: true });
  });

  it('explains what is wrong, with the path of each failing value', () => {
    const missing = check({});
    assert.equal(missing.ok, false);
    assert.match(!missing.ok ? missing.message : '', /arguments must have required property 'order_id'/);

    const wrong = check({ order_id: 1001, email: 'not-an-email', items: [{ qty: 0 }], channel: 'fax', extra: true });
    const message = !wrong.ok ? wrong.message : '';
    assert.match(message, /arguments\.order_id must be string/);
    assert.match(message, /arguments\.email must match format "email"/);
    assert.match(message, /arguments\.items\[0\] must have required property 'sku'/);
    assert.match(message, /arguments\.items\[0\]\.qty must be >= 1/);
    assert.match(message, /must not have property 'extra'/);

    const badEnum = check({ order_id: 'A-1001', channel: 'fax' });
    assert.match(!badEnum.ok ? badEnum.message : '', /^Invalid tool arguments: arguments\.channel must be one of \["sms","email"\]$/);
    assert.equal(check({ order_id: 'nope' }).ok, false);
    assert.equal(check(['A-1001']).ok, false);
    assert.equal(check(null).ok, false);
  });

  it('does not coerce or fill defaults', () => {
    const args = { n: '5' };
    const schema = { type: 'object', properties: { n: { type: 'integer' }, d: { type: 'string', default: 'x' } } };
    assert.equal(check(args, schema).ok, false);
    const ok = { n: 5 };
    assert.deepEqual(check(ok, schema), { ok: true });
    assert.deepEqual(ok, { n: 5 });
  });

  it('speaks 2020-12 by default and draft-07 when the schema says so; ignores unknown keywords', () => {
    const tuple2020 = { type: 'object', properties: { p: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] } }, 'x-vendor': 1 };
    assert.deepEqual(check({ p: [1, 'a'] }, tuple2020), { ok: true });
    assert.equal(check({ p: ['a', 1] }, tuple2020).ok, false);
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { money: { type: 'number', minimum: 0 } },
      properties: { amount: { $ref: '#/definitions/money' }, pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    };
    assert.deepEqual(check({ amount: 5, pair: ['a', 1] }, draft07), { ok: true });
    assert.equal(check({ amount: -1 }, draft07).ok, false);
    assert.equal(check({ pair: [1, 'a'] }, draft07).ok, false);
  });

  it('compiles each schema once and tolerates two schemas with the same $id', () => {
    const a = { $id: 'https://tools.example/args', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const b = { $id: 'https://tools.example/args', type: 'object', properties: { b: { type: 'string' } }, required: ['b'] };
    assert.deepEqual(check({ a: 'x' }, a), { ok: true });
    assert.deepEqual(check({ b: 'x' }, b), { ok: true });
    assert.equal(check({ b: 'x' }, a).ok, false);
    const started = performance.now();
    for (let i = 0; i < 2000; i++) check({ order_id: 'A-1001' }, JSON.parse(JSON.stringify(lookupOrder)));
    assert.ok(performance.now() - started < 1000, 'cached by schema JSON, not by object identity');
  });

  it('reports an uncompilable schema as a failed validation rather than throwing', () => {
    const out = check({}, { type: 'object', properties: { a: { type: 'strin' } } });
    assert.equal(out.ok, false);
    assert.match(!out.ok ? out.message : '', /schema is invalid/);
  });
});

describe('validateToolSchema', () => {
  it('accepts object schemas that compile', () => {
    assert.equal(validateToolSchema(lookupOrder), null);
    assert.equal(validateToolSchema({ type: 'object' }), null);
    assert.equal(validateToolSchema({ type: 'object', properties: { when: { type: 'string', format: 'date-time' } }, examples: [{}] }), null);
  });

  it('names what is wrong otherwise', () => {
    assert.match(validateToolSchema(null)!.message, /JSON Schema object/);
    assert.match(validateToolSchema([])!.message, /JSON Schema object/);
    assert.match(validateToolSchema({ type: 'string' })!.message, /type: 'object'/);
    assert.match(validateToolSchema({ properties: {} })!.message, /type: 'object'/);
    assert.match(validateToolSchema({ type: 'object', properties: [] })!.message, /properties must be an object/);
    assert.match(validateToolSchema({ type: 'object', required: 'a' })!.message, /required must be an array/);
    assert.match(validateToolSchema({ type: 'object', properties: { a: { type: 'strin' } } })!.message, /not a valid JSON Schema/);
    assert.match(validateToolSchema({ type: 'object', properties: { a: { pattern: '(' } } })!.message, /pattern cannot run/);
    assert.match(validateToolSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })!.message, /not a valid JSON Schema/);
  });
});

describe('tenant patterns run on a linear-time engine (issue 28 #1)', () => {
  const hostile = { type: 'object', properties: { code: { type: 'string', pattern: '^(a|a)*b$' } }, patternProperties: { '^(x|x)*y$': { type: 'string' } } };

  it('validates arguments against an exponential-backtracking pattern at once', () => {
    const started = performance.now();
    const out = check({ code: `${'a'.repeat(40)}c`, [`${'x'.repeat(40)}z`]: 'v' }, hostile);
    assert.equal(out.ok, false);
    assert.match(!out.ok ? out.message : '', /must match pattern/);
    assert.equal(check({ code: 'aaab' }, hostile).ok, true);
    // On a backtracking engine 40 'a's take hours; the bound is generous, the point is "not exponential".
    assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
  });

  it('refuses, naming the place, a pattern the linear engine cannot run (lookaround, backreference, too long)', () => {
    const at = (pattern: string) => validateToolSchema({ type: 'object', properties: { code: { type: 'string', pattern } } });
    assert.deepEqual(at('^(?<=a)b$')?.path, ['properties', 'code', 'pattern']);
    assert.match(at('^(a)\\1$')!.message, /linear-time engine/);
    assert.match(at('x'.repeat(1001))!.message, /at most 1000 characters/);
    // Linear in the text, but also in the program: (.*){1000} took 1.6 s over 8,000 characters.
    assert.match(at('(.*){1000}')!.message, /compiles to \d+ steps, at most 250/);
    assert.equal(at('^\\p{L}{2,64}$'), null);
    assert.deepEqual(validateToolSchema({ type: 'object', patternProperties: { '(?!x)': {} } })?.path, ['patternProperties', '(?!x)']);
    // ECMAScript escapes the engine spells otherwise are accepted and mean the same.
    assert.equal(at('^\\u00e9\\u{1F600}\\uD83D\\uDE00$'), null);
    assert.equal(check({ code: 'é😀😀' }, { type: 'object', properties: { code: { type: 'string', pattern: '^\\u00e9\\u{1F600}\\uD83D\\uDE00$' } } }).ok, true);
    // A `pattern` key inside an instance value (const, enum, examples, default) is data, not a regex.
    assert.equal(validateToolSchema({ type: 'object', examples: [{ pattern: '(' }] }), null);
  });
});
