import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { TENANT_PATTERN_MAX_LENGTH, tenantPatternEngine, tenantPatternProblem } from '../../platform/tenant-pattern';

/**
 * JSON-Schema checks for tools (SPEC "Tool endpoint contract" 1: arguments are validated against the
 * tool's schema before the call). A schema is checked once when an agent config is applied
 * (`validateToolSchema`) and used for every call (`validateToolArguments`).
 *
 * Dialect: JSON Schema 2020-12, which is what OpenAI/Anthropic-style tool definitions are written in, unless
 * the schema's `$schema` names draft-04/06/07, which then get Ajv's draft-07 engine (`definitions`,
 * array-form `items`). Formats (email, date-time, uri, uuid…) come from ajv-formats. `strict: false`:
 * keywords Ajv does not know (`examples`, vendor `x-…`) are ignored rather than rejected, as tool authors
 * write them. Validation never coerces or fills defaults: the arguments the planner produced are the ones
 * sent. Compiled validators are cached by the schema's JSON (bounded).
 *
 * `pattern` and `patternProperties` are the tenant's regular expressions: Ajv runs them on the linear-time
 * engine (`code.regExp`, src/platform/tenant-pattern.ts), never on V8's backtracking one, and a schema whose
 * pattern that engine cannot run is refused when the agent is saved, naming the pattern's place.
 */

export interface ValidateToolArgumentsInput {
  schema: Record<string, unknown>;
  arguments: unknown;
}

export type ValidateToolArgumentsResult = { ok: true } | { ok: false; message: string };

const options = {
  strict: false,
  allErrors: true,
  logger: false,
  // Two tools may reuse one $id; schemas are compiled standalone, never registered by id.
  addUsedSchema: false,
  validateFormats: true,
  code: { regExp: tenantPatternEngine },
} as const;

const ajv2020 = addFormats(new Ajv2020(options));
const ajv07 = addFormats(new Ajv(options));

const CACHE_LIMIT = 1000;
const cache = new Map<string, ValidateFunction>();

function engineFor(schema: Record<string, unknown>): { ajv: Ajv; schema: Record<string, unknown> } {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  // The meta-schema reference is ours to pick; an unknown one would make Ajv refuse to compile.
  const { $schema: _ignored, ...rest } = schema;
  return { ajv: /draft-0[4-7]/.test(declared) ? ajv07 : ajv2020, schema: rest };
}

/** Compiles (or returns the cached validator for) a schema; throws Ajv's error when it does not compile. */
function compile(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // keep recently used validators at the end of the eviction order
    cache.set(key, hit);
    return hit;
  }
  const engine = engineFor(schema);
  const validate = engine.ajv.compile(engine.schema);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, validate);
  return validate;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose values are instances, not schemas: a `pattern` key inside them is data. */
const VALUE_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** Where a schema holds a regular expression the linear-time engine refuses, and why (depth-first, first found). */
function findRefusedPattern(node: unknown, path: string[] = []): { path: string[]; message: string } | null {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const found = findRefusedPattern(item, [...path, String(i)]);
      if (found) return found;
    }
    return null;
  }
  if (!isPlainObject(node)) return null;
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_KEYWORDS.has(key)) continue;
    const at = [...path, key];
    if (key === 'pattern' && typeof value === 'string') {
      const problem = tenantPatternProblem(value);
      if (problem) return { path: at, message: `the pattern cannot run on the linear-time engine (${problem}); lookaround, backreferences, large counted repeats and patterns over ${TENANT_PATTERN_MAX_LENGTH} characters are not supported` };
    }
    if (key === 'patternProperties' && isPlainObject(value)) {
      for (const name of Object.keys(value)) {
        const problem = tenantPatternProblem(name);
        if (problem) return { path: [...at, name], message: `the pattern cannot run on the linear-time engine (${problem})` };
      }
    }
    const found = findRefusedPattern(value, at);
    if (found) return found;
  }
  return null;
}

export interface ToolSchemaProblem {
  /** Where inside `parameters` (empty for the schema itself). */
  path: string[];
  message: string;
}

/**
 * Checks a tool's `parameters` when an agent config is applied: a JSON object schema (`type: 'object'`)
 * whose patterns run on the linear-time engine and that compiles. Returns null when usable, else where
 * and what is wrong.
 */
export function validateToolSchema(schema: unknown): ToolSchemaProblem | null {
  const problem = toolSchemaProblem(schema);
  if (typeof problem === 'string') return { path: [], message: problem };
  return problem;
}

function toolSchemaProblem(schema: unknown): string | ToolSchemaProblem | null {
  if (!isPlainObject(schema)) return 'parameters must be a JSON Schema object';
  if (schema.type !== 'object') return "parameters must be a JSON Schema with type: 'object'";
  if (schema.properties !== undefined && !isPlainObject(schema.properties)) return 'parameters.properties must be an object';
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string'))) {
    return 'parameters.required must be an array of property names';
  }
  const refused = findRefusedPattern(schema);
  if (refused) return refused;
  try {
    compile(schema);
    return null;
  } catch (e) {
    return `parameters is not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** Validates a tool call's arguments against the tool's schema; the message lists what is wrong. */
export function validateToolArguments(input: ValidateToolArgumentsInput): ValidateToolArgumentsResult {
  let validate: ValidateFunction;
  try {
    validate = compile(input.schema);
  } catch (e) {
    return { ok: false, message: `The tool's parameters schema is invalid: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (validate(input.arguments)) return { ok: true };
  return { ok: false, message: formatErrors(validate.errors ?? []) };
}

const MAX_ERRORS_SHOWN = 5;

function formatErrors(errors: ErrorObject[]): string {
  const lines = errors.slice(0, MAX_ERRORS_SHOWN).map((e) => {
    const path = e.instancePath ? `arguments${pointerToPath(e.instancePath)}` : 'arguments';
    if (e.keyword === 'additionalProperties') return `${path} must not have property '${String(e.params.additionalProperty)}'`;
    if (e.keyword === 'enum') return `${path} must be one of ${JSON.stringify(e.params.allowedValues)}`;
    return `${path} ${e.message ?? 'is invalid'}`;
  });
  const more = errors.length > MAX_ERRORS_SHOWN ? ` (and ${errors.length - MAX_ERRORS_SHOWN} more)` : '';
  return `Invalid tool arguments: ${[...new Set(lines)].join('; ')}${more}`;
}

/** `/items/0/sku` → `.items[0].sku` */
function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : /^[A-Za-z_$][\w$]*$/.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`))
    .join('');
}
