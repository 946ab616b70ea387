import { z } from '../domain/api-schema';
import { scopeOf } from '../domain/principal';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { DeletedSchema, IdParamsSchema, listOf } from '../http/schemas';
import { MAX_ALLOWED_ORIGINS } from './allowed-origins';
import type { PublishableKeysService } from './publishable-keys.service';
import type { VisitorIdentityService } from './visitor-identity.service';
import { IdentitySecretSchema, PublishableKeySchema, WidgetSettingsSchema } from './widget.schemas';

const AllowedOriginsSchema = z
  .array(z.string().min(1).max(255))
  .min(1)
  .max(MAX_ALLOWED_ORIGINS)
  .describe(`exact origins (scheme://host[:port], no path or wildcard), at most ${MAX_ALLOWED_ORIGINS}; https for a live key except loopback`);

const CreateKeyBodySchema = z.strictObject({
  agent_id: z.string().min(1).max(255),
  allowed_origins: AllowedOriginsSchema,
  name: z.string().min(1).max(100).optional(),
});

/**
 * The website widget's credentials, managed with a secret key: publishable keys (one agent, its allowed
 * origins) and the agent's visitor identity (identity secrets, `identity: optional|required`).
 */
export function registerWidgetRoutes({ router, registry, services }: RouteDeps<{ publishableKeys: PublishableKeysService; visitorIdentity: VisitorIdentityService }>) {
  const tag = 'Website widget';
  const keys = services.publishableKeys;
  const identity = services.visitorIdentity;

  defineRoute(router, registry, {
    method: 'post', path: '/v1/publishable_keys', summary: 'Create a publishable key for one agent and its allowed origins', tag,
    body: CreateKeyBodySchema, response: PublishableKeySchema, status: 201,
  }, ({ body, principal }) => keys.createKey({ ...scopeOf(principal), agentId: body.agent_id, allowedOrigins: body.allowed_origins, name: body.name }));

  defineRoute(router, registry, {
    method: 'get', path: '/v1/publishable_keys', summary: 'List publishable keys (newest first, at most 100)', tag,
    query: z.strictObject({ agent_id: z.string().max(255).optional() }), response: listOf(PublishableKeySchema, 'PublishableKeyList'),
  }, ({ query, principal }) => keys.listKeys({ ...scopeOf(principal), agentId: query.agent_id }));

  defineRoute(router, registry, { method: 'get', path: '/v1/publishable_keys/{id}', summary: 'Retrieve a publishable key', tag, params: IdParamsSchema, response: PublishableKeySchema },
    ({ params, principal }) => keys.getKey({ ...scopeOf(principal), keyId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/publishable_keys/{id}', summary: "Replace a publishable key's allowed origins", tag,
    params: IdParamsSchema, body: z.strictObject({ allowed_origins: AllowedOriginsSchema }), response: PublishableKeySchema,
  }, ({ params, body, principal }) => keys.updateKey({ ...scopeOf(principal), keyId: params.id, allowedOrigins: body.allowed_origins }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/publishable_keys/{id}/revoke', summary: 'Revoke a publishable key: refused from the next request on, open streams end', tag,
    params: IdParamsSchema, response: PublishableKeySchema,
  }, ({ params, principal }) => keys.revokeKey({ ...scopeOf(principal), keyId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/agents/{id}/identity_secrets', summary: "Create an identity secret signing the agent's visitor JWTs (the secret is shown once)", tag,
    params: IdParamsSchema, status: 201, response: IdentitySecretSchema,
    body: z.strictObject({
      expire_others_in_seconds: z.number().int().min(0).max(30 * 24 * 3600).optional()
        .describe("rotation: the agent's other secrets stop verifying this many seconds from now (0: at once); omitted: they keep verifying until removed"),
    }),
  }, ({ params, body, principal }) => identity.createIdentitySecret({ ...scopeOf(principal), agentId: params.id, expireOthersInSeconds: body.expire_others_in_seconds }));

  defineRoute(router, registry, {
    method: 'get', path: '/v1/agents/{id}/identity_secrets', summary: "List the agent's identity secrets (never the secrets themselves)", tag,
    params: IdParamsSchema, response: listOf(IdentitySecretSchema, 'IdentitySecretList'),
  }, ({ params, principal }) => identity.listIdentitySecrets({ ...scopeOf(principal), agentId: params.id }));

  defineRoute(router, registry, {
    method: 'delete', path: '/v1/agents/{id}/identity_secrets/{secret_id}', summary: 'Remove an identity secret: JWTs it signed stop verifying at once', tag,
    params: z.strictObject({ id: z.string().min(1).max(255), secret_id: z.string().min(1).max(255) }), response: DeletedSchema,
  }, ({ params, principal }) => identity.deleteIdentitySecret({ ...scopeOf(principal), agentId: params.id, secretId: params.secret_id }));

  defineRoute(router, registry, { method: 'get', path: '/v1/agents/{id}/widget_settings', summary: "Retrieve the agent's website widget settings", tag, params: IdParamsSchema, response: WidgetSettingsSchema },
    ({ params, principal }) => identity.getWidgetSettings({ ...scopeOf(principal), agentId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/agents/{id}/widget_settings', summary: "Update the agent's website widget settings", tag,
    params: IdParamsSchema, body: z.strictObject({ identity: z.enum(['optional', 'required']) }), response: WidgetSettingsSchema,
  }, ({ params, body, principal }) => identity.updateWidgetSettings({ ...scopeOf(principal), agentId: params.id, identity: body.identity }));
}
