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

export function generateOpenApiDocument(registry: OpenAPIRegistry, serverUrl: string) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Converse API',
      version: '1.0.0',
      description: 'SMS messaging, AI agents in conversations, knowledge bases and webhooks.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
  });
}
