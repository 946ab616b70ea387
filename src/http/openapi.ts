import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import '../domain/api-schema';

/** Routes register their zod schemas here as they are defined; /v1/openapi.json is generated from it. */
export function createOpenApiRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Secret API key: sk_test_… or sk_live_…',
  });
  return registry;
}

/** Strings the API takes may not hold NUL (Postgres cannot store it; such requests are 400). */
const NO_NUL = '^[^\\u0000]*$';

type JsonSchema = { [k: string]: unknown };

/**
 * Writes the NUL rule into every request-side string schema that has no pattern of its own (a pattern
 * such as E.164 already excludes NUL), and into the key names of free-form objects (metadata, filters);
 * and the safe-integer bounds into every request-side integer without bounds of its own.
 */
function stateImplicitRules(schema: unknown): void {
  if (!schema || typeof schema !== 'object') return;
  if (Array.isArray(schema)) return schema.forEach(stateImplicitRules);
  const s = schema as JsonSchema;
  // A nullable value's type is a list (["string", "null"]): its rules apply to its non-null values.
  const types = ([] as unknown[]).concat(s.type);
  if (types.includes('string') && s.pattern === undefined && s.format === undefined && s.enum === undefined && s.const === undefined) s.pattern = NO_NUL;
  // zod's integers are safe integers: a larger one is refused, so the document states the bounds.
  if (types.includes('integer')) {
    if (s.exclusiveMaximum === undefined) s.maximum ??= Number.MAX_SAFE_INTEGER;
    if (s.exclusiveMinimum === undefined) s.minimum ??= Number.MIN_SAFE_INTEGER;
  }
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') {
    // Key names with a rule of their own (a batch's template variables) keep it: it already excludes NUL.
    const names = (s.propertyNames as JsonSchema | undefined) ?? {};
    s.propertyNames = { ...names, pattern: names.pattern ?? NO_NUL };
  }
  for (const [k, v] of Object.entries(s)) if (k !== 'propertyNames') stateImplicitRules(v);
}

function stateImplicitRulesInRequests(document: { paths?: Record<string, Record<string, unknown>> }) {
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item)) {
      const o = op as { parameters?: { schema?: unknown }[]; requestBody?: { content?: Record<string, { schema?: unknown }> } };
      for (const p of o.parameters ?? []) stateImplicitRules(p.schema);
      for (const media of Object.values(o.requestBody?.content ?? {})) stateImplicitRules(media.schema);
    }
  }
  return document;
}

export function generateOpenApiDocument(registry: OpenAPIRegistry, serverUrl: string) {
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Converse API',
      version: '1.0.0',
      description: 'SMS messaging, AI agents in conversations, knowledge bases and webhooks.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
  });
  return stateImplicitRulesInRequests(document as { paths?: Record<string, Record<string, unknown>> });
}
