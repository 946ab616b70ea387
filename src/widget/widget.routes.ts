import { z } from '../domain/api-schema';
import { scopeOf } from '../domain/principal';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { DeletedSchema, IdParamsSchema, listOf } from '../http/schemas';
import { MAX_ALLOWED_ORIGINS } from './allowed-origins';
import type { PublishableKeysService } from './publishable-keys.service';
import type { VisitorIdentityService } from './visitor-identity.service';
import { AppError } from '../domain/errors';
import { AppearanceUpdateSchema } from './widget-appearance';
import type { WidgetSettingsService } from './widget-settings.service';
import { IdentitySecretSchema, PublishableKeySchema, WidgetConfigSchema, WidgetSettingsSchema } from './widget.schemas';

const AllowedOriginsSchema = z
  .array(z.string().min(1).max(255))
  .min(1)
  .max(MAX_ALLOWED_ORIGINS)
  .describe(`exact origins (scheme://host[:port], no path or wildcard), at most ${MAX_ALLOWED_ORIGINS}; https for a live key except loopback`);

const WidgetSettingsBodySchema = AppearanceUpdateSchema.extend({
  identity: z.enum(['optional', 'required']).describe('required: a visitor without a valid identity JWT is refused (401)').optional(),
});

const CreateKeyBodySchema = z.strictObject({
  agent_id: z.string().min(1).max(255),
  allowed_origins: AllowedOriginsSchema,
  name: z.string().min(1).max(100).optional(),
});

/**
 * The website widget's credentials, managed with a secret key: publishable keys (one agent, its allowed
 * origins), the agent's visitor identity (identity secrets, `identity: optional|required`) and widget
 * settings; and the one route the widget reads with its publishable key alone, its public config.
 */
export function registerWidgetRoutes({ router, registry, services }: RouteDeps<{ publishableKeys: PublishableKeysService; visitorIdentity: VisitorIdentityService; widgetSettings: WidgetSettingsService }>) {
  const tag = 'Website widget';
  const keys = services.publishableKeys;
  const identity = services.visitorIdentity;
  const settings = services.widgetSettings;

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
    ({ params, principal }) => settings.getWidgetSettings({ ...scopeOf(principal), agentId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/agents/{id}/widget_settings', summary: "Update the agent's website widget settings (the fields given; the others keep their values)", tag,
    params: IdParamsSchema, body: WidgetSettingsBodySchema, response: WidgetSettingsSchema,
  }, ({ params, body, principal }) => settings.updateWidgetSettings({ ...scopeOf(principal), agentId: params.id, ...body }));

  defineRoute(router, registry, {
    method: 'get', path: '/v1/widget_config', summary: "The website widget's public config: its agent, appearance and identity requirement (publishable key only)", tag,
    response: WidgetConfigSchema, visitor: 'key',
    description: 'Called by the widget with its publishable key (`Authorization: Bearer pk_…`) from one of the key\'s allowed origins; no visitor token is needed or read. A secret key is refused (403 publishable_key_required): read the settings with GET /v1/agents/{id}/widget_settings.',
  }, ({ publishableKey }) => {
    if (!publishableKey) throw new AppError('publishable_key_required', "The widget's config is read with its publishable key (pk_…): with a secret key, use GET /v1/agents/{id}/widget_settings");
    return settings.widgetConfig({ agentId: publishableKey.agentId });
  });
}
